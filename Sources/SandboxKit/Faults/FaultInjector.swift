import Synchronization

/// The live set of fault rules of one simulator, shared by its middleware and its admin endpoint.
///
/// Probabilities draw from a SplitMix64 generator seeded with ``seed``, so a test that sets a seed and sends
/// the same requests sees the same faults.
public final class FaultInjector: Sendable {
    /// What the middleware must do for one request.
    public struct Decision: Sendable {
        /// How long to wait before handling the request, in milliseconds: the sum of every firing latency rule.
        public var latencyMilliseconds = 0
        /// The one non-latency fault to apply (the first firing rule's); nil to handle the request normally.
        public var fault: Fault?
    }

    private struct State {
        var rules: [FaultRule]
        var seed: UInt64
        var generator: SplitMix64
        var subscribers: [Int: AsyncStream<FiredFault>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let state: Mutex<State>
    /// Longest a ``Fault/timeout(afterEffect:)`` holds a request when the client never gives up.
    public let timeoutHoldLimit: Duration

    /// Makes an injector with `rules` and a probability generator started from `seed`; a timeout fault holds a request at
    /// most `timeoutHoldLimit`.
    public init(seed: UInt64 = 0, rules: [FaultRule] = [], timeoutHoldLimit: Duration = .seconds(120)) {
        self.state = Mutex(State(rules: rules, seed: seed, generator: SplitMix64(seed: seed)))
        self.timeoutHoldLimit = timeoutHoldLimit
    }

    /// The rules in force, in evaluation order.
    public var rules: [FaultRule] { state.withLock { $0.rules } }

    /// The seed the probability generator was last started from.
    public var seed: UInt64 { state.withLock { $0.seed } }

    /// Replaces every rule; with a `seed`, also restarts the probability generator from it.
    public func setRules(_ rules: [FaultRule], seed: UInt64? = nil) {
        state.withLock { state in
            state.rules = rules
            if let seed {
                state.seed = seed
                state.generator = SplitMix64(seed: seed)
            }
        }
    }

    /// Appends a rule (evaluated after the existing ones).
    public func add(_ rule: FaultRule) {
        state.withLock { $0.rules.append(rule) }
    }

    /// Removes one rule; returns whether it existed.
    @discardableResult
    public func remove(id: String) -> Bool {
        state.withLock { state in
            let before = state.rules.count
            state.rules.removeAll { $0.id == id }
            return state.rules.count != before
        }
    }

    /// Removes every rule, so the sandbox behaves again.
    public func removeAll() {
        state.withLock { $0.rules.removeAll() }
    }

    /// A stream of the faults that fire from now on (one element per firing rule), for tests and dashboards.
    /// Each call returns an independent stream; it ends when the consumer stops iterating.
    public func firings() -> AsyncStream<FiredFault> {
        let (stream, continuation) = AsyncStream.makeStream(of: FiredFault.self, bufferingPolicy: .bufferingNewest(256))
        let id = state.withLock { state in
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Picks the faults for a request and counts them down. Every firing latency rule adds its delay;
    /// the first firing rule of any other kind decides the outcome, later ones are not consulted.
    public func decide(method: String, path: String) -> Decision {
        let (decision, fired, subscribers) = state.withLock { state in
            var fired: [FiredFault] = []
            var decision = Decision()
            var index = 0
            while index < state.rules.count {
                var rule = state.rules[index]
                guard rule.matches(method: method, path: path) else {
                    index += 1
                    continue
                }
                let isLatency = if case .latency = rule.fault { true } else { false }
                if !isLatency, decision.fault != nil {
                    index += 1
                    continue
                }
                if let probability = rule.probability {
                    let draw = Double(state.generator.next() >> 11) / Double(1 << 53)
                    guard draw < probability else {
                        index += 1
                        continue
                    }
                }
                switch rule.fault {
                case .latency(let ms): decision.latencyMilliseconds += ms
                default: decision.fault = rule.fault
                }
                rule.fired += 1
                fired.append(FiredFault(ruleID: rule.id, fault: rule.fault, method: method, path: path))
                if let count = rule.count {
                    rule.count = count - 1
                }
                if rule.count == 0 {
                    state.rules.remove(at: index)
                } else {
                    state.rules[index] = rule
                    index += 1
                }
            }
            return (decision, fired, Array(state.subscribers.values))
        }
        for event in fired {
            for subscriber in subscribers { subscriber.yield(event) }
        }
        return decision
    }
}

/// One firing of a fault rule.
public struct FiredFault: Sendable, Hashable {
    /// The id of the rule that fired.
    public var ruleID: String
    /// What the rule did to the request.
    public var fault: Fault
    /// The request's HTTP method.
    public var method: String
    /// The request's path.
    public var path: String
}
