struct QueuedEvent {
    var sequence: UInt64
    var arrival: RouterTime
    var event: InputEvent
}

/// The FIFO queue: events are stamped on arrival and routed one at a time.
struct QueueState {
    var events: ContiguousArray<QueuedEvent> = []
    var head = 0
    var nextSequence: UInt64 = 1
}

extension Router {
    var queue: ContiguousArray<QueuedEvent> {
        _read { yield state.pointee.queue.events }
        _modify { yield &state.pointee.queue.events }
    }
    var queueHead: Int {
        _read { yield state.pointee.queue.head }
        _modify { yield &state.pointee.queue.head }
    }
    var nextSequence: UInt64 {
        _read { yield state.pointee.queue.nextSequence }
        _modify { yield &state.pointee.queue.nextSequence }
    }

    public var pendingEvents: Int { queue.count - queueHead }

    /// Queues an event, stamping its arrival.
    public func enqueue(_ event: InputEvent) {
        if queueHead == queue.count, queueHead > 0 {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        queue.append(QueuedEvent(sequence: nextSequence, arrival: clock.now(), event: event))
        nextSequence &+= 1
    }

    /// Routes the oldest queued event; false when the queue is empty.
    public func dispatchNext() -> Bool {
        guard queueHead < queue.count else { return false }
        let queued = queue[queueHead]
        queueHead += 1
        route(queued.event, sequence: queued.sequence, arrival: queued.arrival, dequeued: clock.now())
        if !state.pointee.touch.pendingPresses.isEmpty { settlePresses() }
        return true
    }

    /// Routes every queued event. An event that waited while the one before it was routed
    /// is dequeued the moment that one's `encoded` stamp was read: the timeline's clock
    /// reads cost about as much as routing a motion, and this saves one an event.
    public func dispatchAll() {
        var previousEncoded: RouterTime? = nil
        while queueHead < queue.count {
            let queued = queue[queueHead]
            queueHead += 1
            let dequeued = previousEncoded.flatMap { $0 >= queued.arrival ? $0 : nil } ?? clock.now()
            route(queued.event, sequence: queued.sequence, arrival: queued.arrival, dequeued: dequeued)
            previousEncoded = lastEncoded
        }
        if !state.pointee.touch.pendingPresses.isEmpty { settlePresses() }
    }
}
