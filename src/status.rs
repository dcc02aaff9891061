//! The names of gRPC status codes, as metrics, logs and JSON write them.

use tonic::Code;

/// The canonical name of a gRPC code, as `INVALID_ARGUMENT`.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// Reads a status code written as its name in any case, with `-` or `_`
/// (`resource-exhausted`), or as its number.
///
/// # Errors
///
/// A message listing the names when `text` is none of them.
pub fn parse_code(text: &str) -> Result<Code, String> {
    let name = text.trim().to_ascii_uppercase().replace('-', "_");
    let codes = || (0..=Code::Unauthenticated as i32).map(Code::from_i32);
    let found = match name.parse::<i32>() {
        Ok(number) => codes().find(|&code| code as i32 == number),
        Err(_) => codes().find(|&code| code_name(code) == name),
    };
    found.ok_or_else(|| {
        let names: Vec<_> = codes().map(code_name).collect();
        format!("unknown status code {text:?}; one of {}", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_read_back() {
        for number in 0..=16 {
            let code = Code::from_i32(number);
            assert_eq!(parse_code(code_name(code)), Ok(code));
            assert_eq!(parse_code(&number.to_string()), Ok(code));
        }
        assert_eq!(parse_code("resource-exhausted"), Ok(Code::ResourceExhausted));
        assert!(parse_code("17").unwrap_err().contains("UNAUTHENTICATED"));
        assert!(parse_code("teapot").is_err());
    }
}
