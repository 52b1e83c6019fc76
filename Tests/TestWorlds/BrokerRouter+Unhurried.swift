public import GatewayCore

extension BrokerRouter {
    /// The router of a test world whose subject is not a deadline: a broker call may take 60 s (the product's default
    /// is 5 s). What it protects is only that a hung sandbox still ends the test; a call that a loaded machine slows
    /// down is not a failure of the code under test. The deadlines themselves are tested against events in
    /// `BrokerRouterTests` and the pipeline's tests, and against a hanging broker in the hostile-broker suite.
    public static let unhurried = BrokerRouter(perSourceTimeout: .seconds(60), overallTimeout: .seconds(90))
}
