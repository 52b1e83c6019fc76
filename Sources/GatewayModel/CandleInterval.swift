/// The width of one candle.
public enum CandleInterval: String, WireEnum {
    case oneMinute = "1m"
    case fiveMinutes = "5m"
    case fifteenMinutes = "15m"
    case thirtyMinutes = "30m"
    case oneHour = "1h"
    case fourHours = "4h"
    case oneDay = "1d"
    case oneWeek = "1w"

    /// The width in minutes (a week is 10,080), for stepping through time and sizing a broker request.
    public var minutes: Int {
        switch self {
        case .oneMinute: 1
        case .fiveMinutes: 5
        case .fifteenMinutes: 15
        case .thirtyMinutes: 30
        case .oneHour: 60
        case .fourHours: 240
        case .oneDay: 1440
        case .oneWeek: 10080
        }
    }
}
