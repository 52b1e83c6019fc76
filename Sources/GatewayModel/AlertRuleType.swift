/// Which kind of rule an alert has: `price` (an instrument's quotes) or `order` (the user's orders).
public enum AlertRuleType: String, WireEnum {
    case price
    case order
}
