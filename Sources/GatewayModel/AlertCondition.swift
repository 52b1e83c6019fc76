/// What a price alert compares.
public enum AlertCondition: String, WireEnum {
    case above
    case below
    /// The price moved by at least `threshold` percent (up or down) from a price seen within `windowSeconds`.
    case percentMove = "percent_move"
}
