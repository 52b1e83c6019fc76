import GatewayCore
import GatewayStore
import Logging
import PostgresNIO

/// Postgres failures as the SQLite store reports its own (see `SQLiteStore+Errors.swift`), by SQLSTATE:
///
/// | SQLSTATE | meaning | becomes |
/// |---|---|---|
/// | 23505 | unique violation | `conflict` (the caller's message) |
/// | 23503 | foreign key violation | `notFound` ("a resource it refers to does not exist") |
/// | 40001, 40P01, 55P03, 57014 | serialization failure, deadlock, lock timeout, statement timeout | `upstreamUnavailable`, retryable (SQLite's busy) |
/// | 53xxx, 08xxx, 57P0x | out of resources, connection failures, server shutting down | `upstreamUnavailable`, retryable |
/// | 28000, 28P01 | login refused | `internalError` saying so (a setting to fix, not a retry) |
/// | anything else (P0001 from the journal's triggers, 23514 checks) | | `internalError`, logged |
///
/// Connection failures that never reached the server (refused, closed, the pool closed) are `upstreamUnavailable`
/// too: the request did nothing and can be retried. Nothing here carries a statement's arguments or the server's
/// `detail` field (which quotes key values): only the SQLSTATE, the server's message and the constraint name.
extension PostgresStore {
    func gatewayError(for error: any Error, operation: String, conflict: String?) -> any Error {
        switch error {
        case let error as GatewayError:
            return error
        case is CancellationError:
            return error
        case let error as PSQLError:
            if let state = error.serverInfo?[.sqlState] {
                switch state {
                case "23505":
                    return StoreRules.uniqueViolation(conflict)
                case "23503":
                    return StoreRules.foreignKeyViolation
                case "40001", "40P01", "55P03", "57014":
                    return busy(error, operation: operation)
                case "28000", "28P01":
                    logger.error(
                        "database login refused",
                        metadata: ["database": .string(location), "error": .string(Self.safeDescription(error))]
                    )
                    return GatewayError(
                        .internalError,
                        "the gateway's database refused its login: check the user name and password of the database URL"
                    )
                default:
                    if state.hasPrefix("53") || state.hasPrefix("08") || state.hasPrefix("57P0") {
                        return unavailable(error, operation: operation)
                    }
                }
                logger.error(
                    "database operation failed",
                    metadata: ["operation": .string(operation), "error": .string(Self.safeDescription(error))]
                )
                return StoreRules.databaseFailed
            }
            return unavailable(error, operation: operation)
        default:
            logger.error(
                "database operation failed",
                metadata: ["operation": .string(operation), "error": .string(Self.safeDescription(error))]
            )
            return StoreRules.databaseFailed
        }
    }

    private func busy(_ error: PSQLError, operation: String) -> GatewayError {
        logger.warning(
            "database busy",
            metadata: ["operation": .string(operation), "error": .string(Self.safeDescription(error))]
        )
        return StoreRules.databaseBusy
    }

    private func unavailable(_ error: PSQLError, operation: String) -> GatewayError {
        logger.error(
            "database unavailable",
            metadata: [
                "operation": .string(operation), "database": .string(location),
                "error": .string(Self.safeDescription(error)),
            ]
        )
        return GatewayError(
            .upstreamUnavailable,
            "the gateway's database is unavailable; retry shortly",
            retryable: true,
            retryAfter: StoreRules.busyRetryAfter
        )
    }

    /// An error's description without statement arguments, the server's `detail`, or connection settings.
    static func safeDescription(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            guard let info = error.serverInfo else { return "PostgreSQL client error \(error.code)" }
            var text = "PostgreSQL error \(info[.sqlState] ?? "?"): \(info[.message] ?? "")"
            if let constraint = info[.constraintName] { text += " (constraint \(constraint))" }
            return text
        }
        if error is PostgresDecodingError { return "stored data does not decode" }
        return StoreRules.safeDescription(ofOther: error)
    }
}
