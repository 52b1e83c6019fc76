import GRDB
import GatewayCore
public import GatewayStore
import Logging

extension SQLiteStore {
    /// Runs a read, turning database failures into `GatewayError`s.
    func read<T: Sendable>(_ operation: String, _ body: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await writer.read(body)
        } catch {
            throw gatewayError(for: error, operation: operation, conflict: nil)
        }
    }

    /// Runs a write in a transaction, turning database failures into `GatewayError`s. A unique-constraint failure
    /// becomes `conflict` with the message given (the database's own text names columns, not what the user did).
    func write<T: Sendable>(
        _ operation: String,
        conflict: String? = nil,
        _ body: @Sendable (Database) throws -> T
    ) async throws -> T {
        defer { countWrite() }
        do {
            return try await writer.write(body)
        } catch {
            throw gatewayError(for: error, operation: operation, conflict: conflict)
        }
    }

    func gatewayError(for error: any Error, operation: String, conflict: String?) -> any Error {
        switch error {
        case let error as GatewayError:
            return error
        case is CancellationError:
            return error
        case let error as DatabaseError:
            switch error.extendedResultCode {
            case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY:
                return StoreRules.uniqueViolation(conflict)
            case .SQLITE_CONSTRAINT_FOREIGNKEY:
                return StoreRules.foreignKeyViolation
            default:
                break
            }
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                // Another writer (an admin command, another process) held the lock past the busy timeout: the
                // request did nothing and the same request can succeed a moment later, so it is a 503 the client
                // retries, like an upstream that is briefly unavailable, and no internal error.
                logger.warning(
                    "database busy",
                    metadata: ["operation": .string(operation), "error": .string(Self.safeDescription(error))]
                )
                return StoreRules.databaseBusy
            default:
                break
            }
            logger.error(
                "database operation failed",
                metadata: ["operation": .string(operation), "error": .string(Self.safeDescription(error))]
            )
            switch error.resultCode {
            case .SQLITE_FULL:
                return GatewayError(.internalError, "the gateway's database is out of disk space")
            default:
                return StoreRules.databaseFailed
            }
        default:
            logger.error(
                "database operation failed",
                metadata: ["operation": .string(operation), "error": .string(Self.safeDescription(error))]
            )
            return StoreRules.databaseFailed
        }
    }

    /// An error's description without SQL arguments (which could hold hashes or ciphertexts).
    static func safeDescription(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return "SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "")"
        }
        return StoreRules.safeDescription(ofOther: error)
    }
}
