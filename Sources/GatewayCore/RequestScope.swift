public import Logging

/// The request a piece of work is for, carried as a task-local from the HTTP server down to every broker call, so
/// every log line of a request names it (through ``Logging/Logger/MetadataProvider/requestScope``).
public enum RequestScope {
    /// The request's id: the caller's `X-Request-ID` when it is a safe token, else one the gateway made.
    @TaskLocal public static var requestId: String?
}

extension Logger.MetadataProvider {
    /// Adds `request-id` to every log line written while a request is being served.
    public static let requestScope = Logger.MetadataProvider {
        guard let id = RequestScope.requestId else { return [:] }
        return ["request-id": .string(id)]
    }
}
