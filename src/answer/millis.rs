//! Times in answers: the rules core keeps every time in whole milliseconds,
//! and this module is the one writer of each form the answers give them,
//! so that the forms cannot drift apart:
//!
//! - [`duration`]: a `google.protobuf.Duration` message, for the generated
//!   messages (a ply's `clock`, the remaining times, a PGN game's clock);
//! - [`push_duration_json`]: that message's proto3 JSON, `"12.500s"`, for
//!   `arbiter validate`;
//! - [`push_seconds`]: seconds as a JSON number, `12.5`, for the clock of
//!   `arbiter pgn --json` (what anti-cheat models read).
//!
//! The wire bytes of the same Duration are the codec's, next to the varints
//! they are made of (`duration_content` in `src/api/wire/answers.rs`); a
//! test holds them to prost's encoding of [`duration`].

use crate::answer::push_decimal;

/// A time in whole milliseconds as a `google.protobuf.Duration`.
pub fn duration(ms: u64) -> prost_types::Duration {
    // Both fit: `u64::MAX / 1000` is below `i64::MAX`, and the nanoseconds
    // of less than a second below `i32::MAX`.
    prost_types::Duration { seconds: (ms / 1000) as i64, nanos: (ms % 1000 * 1_000_000) as i32 }
}

/// Appends the proto3 JSON of `duration`: a string of its seconds with 0,
/// 3, 6 or 9 decimals (as few as are exact) and an `s`, `"12.500s"`,
/// `"-0.000001s"`. Answers write one a ply, so the digits are put down
/// by hand rather than through the formatting machinery, and always
/// inlined: where the Duration was just made from milliseconds its sign and
/// finer fractions are known, and their checks fold away (out of line, a
/// clocked `validate --batch` took 2 % more instructions).
#[inline(always)]
pub fn push_duration_json(out: &mut Vec<u8>, duration: &prost_types::Duration) {
    let prost_types::Duration { seconds, nanos } = *duration;
    out.push(b'"');
    if seconds < 0 || nanos < 0 {
        out.push(b'-');
    }
    push_decimal(out, seconds.unsigned_abs());
    let nanos = nanos.unsigned_abs();
    match nanos {
        0 => {}
        n if n.is_multiple_of(1_000_000) => push_fraction::<3>(out, n / 1_000_000),
        n if n.is_multiple_of(1_000) => push_fraction::<6>(out, n / 1_000),
        n => push_fraction::<9>(out, n),
    }
    out.extend_from_slice(b"s\"");
}

/// Appends `ms` as a JSON number of seconds, exactly, with as few decimals
/// as that takes (`12`, `12.5`, `0.001`).
pub fn push_seconds(out: &mut Vec<u8>, ms: u64) {
    push_decimal(out, ms / 1000);
    // Below a thousand.
    match (ms % 1000) as u32 {
        0 => {}
        f if f.is_multiple_of(100) => push_fraction::<1>(out, f / 100),
        f if f.is_multiple_of(10) => push_fraction::<2>(out, f / 10),
        f => push_fraction::<3>(out, f),
    }
}

/// Appends `.` and `DIGITS` decimals holding `frac` (below `10^DIGITS`),
/// zeros first: `::<3>(5)` is `.005`. The count is a constant so that the
/// digits are one copy of fixed length, not a call to `memcpy`.
#[inline]
fn push_fraction<const DIGITS: usize>(out: &mut Vec<u8>, frac: u32) {
    debug_assert!(DIGITS <= 9 && u64::from(frac) < 10u64.pow(DIGITS as u32));
    let mut text = [b'.'; 10];
    let mut rest = frac;
    for digit in text[1..=DIGITS].iter_mut().rev() {
        *digit = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    out.extend_from_slice(&text[..=DIGITS]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(duration: prost_types::Duration) -> String {
        let mut out = Vec::new();
        push_duration_json(&mut out, &duration);
        String::from_utf8(out).unwrap()
    }

    fn seconds(ms: u64) -> String {
        let mut out = Vec::new();
        push_seconds(&mut out, ms);
        String::from_utf8(out).unwrap()
    }

    /// Each form of the edges: nothing, the last millisecond of a second,
    /// a whole second, fractions of one, two and three digits, and the
    /// largest count of milliseconds.
    #[test]
    fn times_are_written_in_each_form() {
        let max_seconds = (u64::MAX / 1000) as i64;
        for (ms, seconds_field, nanos, text, number) in [
            (0, 0, 0, "\"0s\"", "0"),
            (1, 0, 1_000_000, "\"0.001s\"", "0.001"),
            (999, 0, 999_000_000, "\"0.999s\"", "0.999"),
            (1000, 1, 0, "\"1s\"", "1"),
            (1001, 1, 1_000_000, "\"1.001s\"", "1.001"),
            (12_500, 12, 500_000_000, "\"12.500s\"", "12.5"),
            (12_050, 12, 50_000_000, "\"12.050s\"", "12.05"),
            (60_000, 60, 0, "\"60s\"", "60"),
            (
                u64::MAX,
                max_seconds,
                615_000_000,
                "\"18446744073709551.615s\"",
                "18446744073709551.615",
            ),
        ] {
            let message = duration(ms);
            assert_eq!(message, prost_types::Duration { seconds: seconds_field, nanos }, "{ms}");
            assert_eq!(json(message), text, "{ms}");
            assert_eq!(seconds(ms), number, "{ms}");
            // The number reads back as the time, to the millisecond.
            let read: f64 = number.parse().unwrap();
            if ms < 1 << 40 {
                assert_eq!((read * 1000.0).round() as u64, ms);
            }
        }
    }

    /// Random times: the JSON string as the proto3 mapping writes a
    /// Duration of whole milliseconds (three decimals, or none), and the
    /// JSON number read back to the millisecond.
    #[test]
    fn random_times_are_written_exactly() {
        use rand::{RngCore as _, SeedableRng as _};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(33);
        for ms in (0..5000).map(|_| rng.next_u64() % 20_000_000_000) {
            let expected = match ms % 1000 {
                0 => format!("\"{}s\"", ms / 1000),
                frac => format!("\"{}.{frac:03}s\"", ms / 1000),
            };
            assert_eq!(json(duration(ms)), expected);
            let read: f64 = seconds(ms).parse().unwrap();
            assert_eq!((read * 1000.0).round() as u64, ms);
        }
    }

    /// A Duration not made from milliseconds is written as the proto3 JSON
    /// mapping asks too: six or nine decimals, and a sign.
    #[test]
    fn any_duration_is_written_as_proto3_json() {
        for (seconds, nanos, text) in [
            (3, 1_000, "\"3.000001s\""),
            (0, 1, "\"0.000000001s\""),
            (-2, -500_000_000, "\"-2.500s\""),
            (0, -1_000, "\"-0.000001s\""),
            (-1, 0, "\"-1s\""),
            (315_576_000_000, 999_999_999, "\"315576000000.999999999s\""),
        ] {
            assert_eq!(json(prost_types::Duration { seconds, nanos }), text);
        }
    }
}
