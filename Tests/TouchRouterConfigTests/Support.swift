import TouchRouterConfig

/// The error a configuration text gives as it would be printed, read as `file`; "no error"
/// when it is taken.
func configurationError(_ text: String, file: String) -> String {
    do {
        _ = try ServerConfiguration.parse(text, file: file)
        return "no error"
    } catch {
        return error.description
    }
}
