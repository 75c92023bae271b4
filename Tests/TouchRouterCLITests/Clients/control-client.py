#!/usr/bin/env python3
"""A peer of the control socket that does what `touch-router msg` never does.

    control-client.py SOCKET MODE

    many-requests   sends six requests on one connection in one write, the fourth malformed,
                    and prints each reply line
    connections     holds as many connections as the session keeps, prints the reply of
                    one more, then closes one and prints a request's reply on a new one
    slow-trace      starts a trace and reads nothing while 20,000 touch motions are routed,
                    then reads everything, routes one more event, and prints the line that
                    says how many trace lines were lost, and whether any came after it

    slow-subscribe  subscribes to unhandled events and reads nothing while 40,000 touches go
                    down on nothing, stays silent for 3 s (past the idle limit the test sets),
                    then reads everything, puts one more touch down, and prints the line that
                    says how many events were lost, and whether any came after it

    idle            sends one request, then nothing, and prints how many seconds passed
                    before the session closed the connection
    touch-cap       puts 257 touches down through inject, prints the last reply, lifts one
                    and prints the reply to one more down

It exits 0 when it could talk to the session, 1 otherwise; the test reads what it printed.
"""
import socket
import sys
import time

MAXIMUM_CONNECTIONS = 64


def connect(path):
    peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    peer.connect(path)
    peer.settimeout(10)
    return peer


def lines(peer, count):
    data = b""
    while data.count(b"\n") < count:
        chunk = peer.recv(65536)
        if not chunk:
            break
        data += chunk
    return data.decode().splitlines()


def many_requests(path):
    peer = connect(path)
    peer.sendall(b"tree\nfocus\npick 10 10\nno-such-request\ninject touch down 1 5 5\ninject touch up 1\n")
    for line in lines(peer, 6):
        print(line)


def connections(path):
    held = [connect(path) for _ in range(MAXIMUM_CONNECTIONS)]
    time.sleep(0.2)  # The session accepts them all before the next one.
    one_more = connect(path)
    print("refused:", lines(one_more, 1)[0])
    held.pop().close()
    time.sleep(0.2)
    fresh = connect(path)
    fresh.sendall(b"focus\n")
    print("after one closed:", lines(fresh, 1)[0])


def slow_trace(path):
    tracer = connect(path)
    tracer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    tracer.sendall(b"trace\n")
    time.sleep(0.2)
    injector = connect(path)
    injector.sendall(b"inject touch down 1 5 5\n")
    lines(injector, 1)
    batch = b"".join(b"inject touch motion 1 %d 5\n" % (i % 500) for i in range(1000))
    for _ in range(20):
        injector.sendall(batch)
        lines(injector, 1000)
    # Catch up: read until the session has nothing more for a while.
    tracer.settimeout(2.5)
    try:
        while tracer.recv(1 << 20):
            pass
    except socket.timeout:
        pass
    injector.sendall(b"inject touch up 1\n")
    lines(injector, 1)
    tracer.settimeout(5)
    after = b""
    while b'"lost"' not in after or after.count(b"\n") < 2:
        chunk = tracer.recv(65536)
        if not chunk:
            break
        after += chunk
    seen = after.decode().splitlines()
    lost = [line for line in seen if '"lost"' in line]
    print("lost line:", lost[0] if lost else "none")
    print("lines after it:", len(seen) - 1 - seen.index(lost[0]) if lost else 0)


def slow_subscribe(path):
    subscriber = connect(path)
    subscriber.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    subscriber.sendall(b"subscribe unhandled\n")
    time.sleep(0.2)
    injector = connect(path)
    # About 2 MB of events, twice what a peer may leave unread.
    batch = b"".join(b"inject touch down %d 5 5\ninject touch up %d\n" % (i, i) for i in range(1000))
    for _ in range(40):
        injector.sendall(batch)
        lines(injector, 2000)
    injector.close()
    # A subscriber is never idle, however long it says nothing.
    time.sleep(3)
    subscriber.settimeout(2.5)
    try:
        while subscriber.recv(1 << 20):
            pass
    except socket.timeout:
        pass
    injector = connect(path)
    injector.sendall(b"inject touch down 1 5 5\ninject touch up 1\n")
    lines(injector, 2)
    subscriber.settimeout(5)
    after = b""
    while b'"lost"' not in after or after.count(b"\n") < 2:
        chunk = subscriber.recv(65536)
        if not chunk:
            break
        after += chunk
    seen = after.decode().splitlines()
    lost = [line for line in seen if '"lost"' in line]
    print("lost line:", lost[0] if lost else "none")
    print("lines after it:", len(seen) - 1 - seen.index(lost[0]) if lost else 0)
    if len(seen) > 1:
        print("last:", seen[-1])


def idle(path):
    peer = connect(path)
    peer.sendall(b"focus\n")
    lines(peer, 1)
    start = time.monotonic()
    peer.settimeout(30)
    rest = peer.recv(1 << 16)
    print("closed after %d s with %d more bytes" % (round(time.monotonic() - start), len(rest)))


def touch_cap(path):
    peer = connect(path)
    peer.sendall(b"".join(b"inject touch down %d 5 5\n" % i for i in range(257)))
    print("257th:", lines(peer, 257)[-1])
    peer.sendall(b"inject touch up 0\ninject touch down 300 5 5\n")
    print("after one lifted:", lines(peer, 2)[-1])


if __name__ == "__main__":
    modes = {"many-requests": many_requests, "connections": connections, "slow-trace": slow_trace, "slow-subscribe": slow_subscribe, "touch-cap": touch_cap, "idle": idle}
    if len(sys.argv) != 3 or sys.argv[2] not in modes:
        sys.exit("usage: control-client.py SOCKET " + "|".join(modes))
    modes[sys.argv[2]](sys.argv[1])
