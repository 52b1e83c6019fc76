public enum AlertRuleType: String, WireEnum {
    case price
    case order
}
