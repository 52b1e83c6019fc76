/// What kind of thing an instrument is. Broker categories that fit none of these map to `other`
/// (the broker-native key keeps the original).
public enum AssetClass: String, WireEnum {
    case equity, etf, fund, bond, option, future, fx, crypto, cfd, index, other
}
