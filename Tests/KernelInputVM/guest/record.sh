# Test data for the recording decoder (Sources/TouchRouterReplay/LibinputRecording.swift):
# Debian's `libinput record` records the uinput touchscreen and keyboard while a live session
# reads the same device nodes and `touch-router msg trace` prints what its libinput backend
# made of them. Both files go back to the host (VM_KEEP=DIR keeps them in DIR/record);
# Tests/TouchRouterReplayTests/Recordings/ holds the copies the tests read.
# The gesture: a finger on device slot 1 (libinput gives it seat slot 0, the lowest free),
# a second on slot 0 (seat slot 1), both pinching in over four frames, lifted one by one;
# then a tap on slot 0, then "hi" typed.
start_uinput_devices
touch-router run --backend headless --output 1920x1080 --input-device "$touchscreen" --input-device "$keyboard" > /run/session.log 2>&1 &
session=$!
session_sockets /run/session.log
touch-router msg trace > /run/trace.jsonl 2>&1 &
tracer=$!
until_true grep -q tracing /run/trace.jsonl || { cat /run/trace.jsonl /run/session.log; verdict 20; }
libinput record --show-keycodes -o /run/recording.yml "$touchscreen" "$keyboard" > /run/record.log 2>&1 &
recorder=$!
until_true grep -q 'Recording to' /run/record.log || { cat /run/record.log; verdict 21; }
sleep 0.5

for command in "down 1000 2000 1" "down 3000 2000 0" \
    "motion 1200 2000 1" "motion 2800 2000 0" "motion 1400 2010 1" "motion 2600 1990 0" \
    "motion 1600 2020 1" "motion 2400 1980 0" "motion 1800 2030 1" "motion 2200 1970 0" \
    "up 1" "up 0" "tap 2048 1024 0" "key 35" "key 23"; do
    echo "$command" >&3
done
# Each command ends with a report and 30 ms of sleep: 17 reports in all, with the tap's two.
seen_all() { grep -q 'typed 23' /run/devices.log; }
until_true seen_all || { cat /run/devices.log; verdict 22; }
sleep 1
kill -INT "$recorder"; wait "$recorder" 2>/dev/null || true
kill "$tracer"; wait "$tracer" 2>/dev/null || true
echo "recorder: $(cat /run/record.log)"
echo "trace lines: $(grep -c '"event"' /run/trace.jsonl)"
grep -q 'KEY_H' /run/recording.yml || { cat /run/recording.yml; verdict 23; }
send_file /run/recording.yml recording.yml
send_file /run/trace.jsonl trace.jsonl
verdict 0
