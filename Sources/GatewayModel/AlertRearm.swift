/// After a price alert fires: `cross_back` re-arms it when the price crosses back, `once` disables it.
public enum AlertRearm: String, WireEnum {
    case crossBack = "cross_back"
    case once
}
