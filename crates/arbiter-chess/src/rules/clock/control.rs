//! Time controls: the PGN TimeControl tag (PGN standard 9.6.1) and the
//! structured form with a delay.

use std::fmt;

/// The most periods a time control may have.
pub const MAX_PERIODS: usize = 16;

/// The most seconds any one field of a time control may hold (about
/// 115 days): with it, no sum the clock makes can overflow.
pub const MAX_SECONDS: u64 = 10_000_000;

/// The most moves a period may count.
pub const MAX_PERIOD_MOVES: u32 = 10_000;

/// One period of a time control: `moves` moves (0: the rest of the game)
/// in `time_ms`, with `increment_ms` added after each move made in it.
///
/// ```
/// use arbiter_chess::{Period, TimeControl};
/// let tc: TimeControl = "40/5400+30:1800+30".parse().unwrap();
/// assert_eq!(tc.periods()[0], Period { moves: 40, time_ms: 5_400_000, increment_ms: 30_000 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Period {
    /// The moves a side makes in the period; 0 for the rest of the game.
    pub moves: u32,
    /// The time the period grants, in milliseconds.
    pub time_ms: u64,
    /// The time added after each move made in the period, in milliseconds.
    pub increment_ms: u64,
}

/// How a delay spares the clock (FIDE Laws 6.1 and the Guidelines III).
///
/// After a completed move both leave the same time; they differ in when
/// the flag falls: a Bronstein clock runs from the start of the move and
/// gives the delay back after it, a simple delay holds the clock still.
///
/// ```
/// use arbiter_chess::DelayKind;
/// assert_ne!(DelayKind::Bronstein, DelayKind::Simple);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DelayKind {
    /// The time taken, up to the delay, is given back after the move.
    Bronstein,
    /// Simple (US) delay: the clock runs only once the delay has passed.
    Simple,
}

/// A delay of `ms` milliseconds on every move, of the given kind.
///
/// ```
/// use arbiter_chess::{Delay, DelayKind};
/// let d = Delay { kind: DelayKind::Simple, ms: 5_000 };
/// assert_eq!(d.ms, 5_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Delay {
    /// Bronstein or simple.
    pub kind: DelayKind,
    /// The delay, in milliseconds.
    pub ms: u64,
}

/// A time control: what a PGN TimeControl tag says, or a structured
/// control with a delay the tag cannot say.
///
/// A tag parses with [`str::parse`]; on every tag python-chess 1.11
/// accepts as a plain control its periods are python-chess's (moves,
/// seconds, increment). The forms:
///
/// ```
/// use arbiter_chess::{Period, TimeControl};
/// assert_eq!("?".parse::<TimeControl>().unwrap(), TimeControl::Unknown);
/// assert_eq!("-".parse::<TimeControl>().unwrap(), TimeControl::Unlimited);
/// assert_eq!("*180".parse::<TimeControl>().unwrap(), TimeControl::Sandclock { time_ms: 180_000 });
/// let blitz: TimeControl = "180+2".parse().unwrap();
/// assert_eq!(blitz.periods(), [Period { moves: 0, time_ms: 180_000, increment_ms: 2_000 }]);
/// let half: TimeControl = "60+0.5".parse().unwrap();
/// assert_eq!(half.periods()[0].increment_ms, 500);
/// assert!("40/5400+30:1800+30".parse::<TimeControl>().is_ok());
/// assert!("1800:40/5400".parse::<TimeControl>().is_err()); // sudden death only last
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimeControl {
    /// `?`, or an empty tag: the control is not known.
    Unknown,
    /// `-`: no time control.
    Unlimited,
    /// `*SECONDS`: an hourglass; the time one side uses flows to the other.
    Sandclock {
        /// Each side's time at the start, in milliseconds.
        time_ms: u64,
    },
    /// Periods played in turn, with an optional delay on every move.
    Periods {
        /// The periods, at least one; only the last may be the rest of
        /// the game (`moves` 0). A last period with a move count repeats.
        periods: Vec<Period>,
        /// The delay, if any (the tag cannot say one).
        delay: Option<Delay>,
    },
}

/// Which number of a time control is wrong.
///
/// ```
/// use arbiter_chess::{Field, TimeControlError};
/// let e = "40/x".parse::<arbiter_chess::TimeControl>().unwrap_err();
/// assert!(matches!(e, TimeControlError::Number { field: Field::Seconds, .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// The moves before `/`.
    Moves,
    /// The seconds of a period or a sandclock.
    Seconds,
    /// The increment after `+`.
    Increment,
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Field::Moves => "moves",
            Field::Seconds => "seconds",
            Field::Increment => "increment",
        })
    }
}

/// What is wrong with a number of a time control.
///
/// ```
/// use arbiter_chess::{NumberError, TimeControlError};
/// let e = "60+0.0005".parse::<arbiter_chess::TimeControl>().unwrap_err();
/// assert!(matches!(e, TimeControlError::Number { why: NumberError::SubMillisecond, .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumberError {
    /// Not ASCII digits (with one `.` where decimals are allowed).
    NotANumber,
    /// A decimal where only whole numbers are allowed.
    NotWhole,
    /// Finer than a millisecond.
    SubMillisecond,
    /// Above [`MAX_SECONDS`] or [`MAX_PERIOD_MOVES`].
    TooLarge,
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberError::NotANumber => "not a number",
            NumberError::NotWhole => "must be a whole number",
            NumberError::SubMillisecond => "finer than a millisecond",
            NumberError::TooLarge => "too large",
        })
    }
}

/// Why a time control is malformed. Periods are numbered from 1.
///
/// ```
/// use arbiter_chess::TimeControl;
/// let e = "40/5400:x".parse::<TimeControl>().unwrap_err();
/// assert_eq!(e.to_string(), "period 2: seconds \"x\": not a number");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// More than [`MAX_PERIODS`] periods.
    #[error("{found} periods, at most {MAX_PERIODS} allowed")]
    TooManyPeriods {
        /// The periods found.
        found: usize,
    },
    /// A structured control without periods.
    #[error("no periods")]
    NoPeriods,
    /// A structured control's delay above [`MAX_SECONDS`].
    #[error("a delay of {ms} ms is too large")]
    DelayTooLarge {
        /// The delay, in milliseconds.
        ms: u64,
    },
    /// A number that is not one, or out of bounds.
    #[error("period {period}: {field} {text:?}: {why}")]
    Number {
        /// The period, from 1.
        period: usize,
        /// Which number.
        field: Field,
        /// The text as written (shortened past 24 characters).
        text: String,
        /// What is wrong with it.
        why: NumberError,
    },
    /// A period of the rest of the game (no move count) before the last.
    #[error(
        "period {period} has no move count, but only the last period may be the rest of the game"
    )]
    SuddenDeathNotLast {
        /// The period, from 1.
        period: usize,
    },
    /// More than one `+` or `/` in a period.
    #[error("period {period}: more than one {sign:?}")]
    Repeated {
        /// The period, from 1.
        period: usize,
        /// `+` or `/`.
        sign: char,
    },
    /// A delay written in the tag (`+5d`): it does not say Bronstein or
    /// simple, so it needs the structured form.
    #[error("period {period}: a delay in the tag does not say Bronstein or simple delay")]
    DelayKindUnstated {
        /// The period, from 1.
        period: usize,
    },
}

impl TimeControl {
    /// A structured control, checked as a tag is: at least one and at
    /// most [`MAX_PERIODS`] periods, only the last without a move count,
    /// every number within bounds.
    ///
    /// ```
    /// use arbiter_chess::{Delay, DelayKind, Period, TimeControl};
    /// let g90 = Period { moves: 0, time_ms: 5_400_000, increment_ms: 0 };
    /// let delay = Some(Delay { kind: DelayKind::Simple, ms: 5_000 });
    /// assert!(TimeControl::structured(vec![g90], delay).is_ok());
    /// assert!(TimeControl::structured(vec![], None).is_err());
    /// ```
    pub fn structured(
        periods: Vec<Period>,
        delay: Option<Delay>,
    ) -> Result<TimeControl, TimeControlError> {
        if periods.is_empty() {
            return Err(TimeControlError::NoPeriods);
        }
        if periods.len() > MAX_PERIODS {
            return Err(TimeControlError::TooManyPeriods { found: periods.len() });
        }
        let too_large = |period: usize, field: Field, value: u64| TimeControlError::Number {
            period,
            field,
            text: value.to_string(),
            why: NumberError::TooLarge,
        };
        let max_ms = MAX_SECONDS * 1000;
        for (i, p) in periods.iter().enumerate() {
            let n = i + 1;
            if p.moves > MAX_PERIOD_MOVES {
                return Err(too_large(n, Field::Moves, p.moves.into()));
            }
            if p.time_ms > max_ms {
                return Err(too_large(n, Field::Seconds, p.time_ms));
            }
            if p.increment_ms > max_ms {
                return Err(too_large(n, Field::Increment, p.increment_ms));
            }
            if p.moves == 0 && n < periods.len() {
                return Err(TimeControlError::SuddenDeathNotLast { period: n });
            }
        }
        if let Some(d) = delay
            && d.ms > max_ms
        {
            return Err(TimeControlError::DelayTooLarge { ms: d.ms });
        }
        Ok(TimeControl::Periods { periods, delay })
    }

    /// The periods: none for an unknown or unlimited control, and none
    /// for a sandclock (python-chess rejects `*SECONDS`).
    ///
    /// ```
    /// use arbiter_chess::TimeControl;
    /// let tc: TimeControl = "40/7200:3600".parse().unwrap();
    /// assert_eq!(tc.periods().len(), 2);
    /// assert!(TimeControl::Unknown.periods().is_empty());
    /// ```
    pub fn periods(&self) -> &[Period] {
        match self {
            TimeControl::Periods { periods, .. } => periods,
            _ => &[],
        }
    }
}

impl std::str::FromStr for TimeControl {
    type Err = TimeControlError;

    /// Parses a PGN TimeControl tag; see [`TimeControl`].
    fn from_str(tag: &str) -> Result<TimeControl, TimeControlError> {
        match tag {
            "" | "?" => return Ok(TimeControl::Unknown),
            "-" => return Ok(TimeControl::Unlimited),
            _ => {}
        }
        if let Some(seconds) = tag.strip_prefix('*') {
            let time_ms = number(1, Field::Seconds, seconds)?;
            return Ok(TimeControl::Sandclock { time_ms });
        }
        let found = tag.bytes().filter(|&b| b == b':').count() + 1;
        if found > MAX_PERIODS {
            return Err(TimeControlError::TooManyPeriods { found });
        }
        let periods = tag
            .split(':')
            .enumerate()
            .map(|(i, text)| period(i + 1, text))
            .collect::<Result<Vec<_>, _>>()?;
        TimeControl::structured(periods, None)
    }
}

/// One period of a tag: `[MOVES/]SECONDS[+INCREMENT]`.
fn period(n: usize, text: &str) -> Result<Period, TimeControlError> {
    let (moves_time, increment) = match split_once(text, b'+') {
        Some((_, inc)) if has(inc, b'+') => {
            return Err(TimeControlError::Repeated { period: n, sign: '+' });
        }
        Some((_, inc)) if inc.ends_with(['d', 'D']) => {
            return Err(TimeControlError::DelayKindUnstated { period: n });
        }
        Some((mt, inc)) => (mt, number(n, Field::Increment, inc)?),
        None => (text, 0),
    };
    let (moves, time) = match split_once(moves_time, b'/') {
        Some((_, time)) if has(time, b'/') => {
            return Err(TimeControlError::Repeated { period: n, sign: '/' });
        }
        // Bounded by MAX_PERIOD_MOVES: the conversion cannot fail.
        Some((moves, time)) => (u32::try_from(whole(n, Field::Moves, moves)?).unwrap_or(0), time),
        None => (0, moves_time),
    };
    let time_ms = whole(n, Field::Seconds, time)? * 1000;
    Ok(Period { moves, time_ms, increment_ms: increment })
}

/// A whole number of seconds or moves.
fn whole(period: usize, field: Field, text: &str) -> Result<u64, TimeControlError> {
    if has(text, b'.') {
        return Err(number_error(period, field, text, NumberError::NotWhole));
    }
    Ok(number(period, field, text)? / 1000)
}

/// Seconds (or moves), with decimals down to the millisecond, as
/// milliseconds, within the bound of `field`.
fn number(period: usize, field: Field, text: &str) -> Result<u64, TimeControlError> {
    let limit = if field == Field::Moves { u64::from(MAX_PERIOD_MOVES) } else { MAX_SECONDS };
    decimal_ms(text, limit).map_err(|why| number_error(period, field, text, why))
}

/// Seconds written in decimal, down to the millisecond, as milliseconds:
/// `12`, `12.5`, `.5`, `5.` and `0.5000` (as Python's `float` reads them,
/// without signs, exponents or spaces), at most [`MAX_SECONDS`].
///
/// ```
/// use arbiter_chess::{NumberError, seconds_ms};
/// assert_eq!(seconds_ms("12.5"), Ok(12_500));
/// assert_eq!(seconds_ms(".001"), Ok(1));
/// assert_eq!(seconds_ms("0.0005"), Err(NumberError::SubMillisecond));
/// assert_eq!(seconds_ms("-1"), Err(NumberError::NotANumber));
/// ```
///
/// # Errors
///
/// Not a number, finer than a millisecond, or past the bound.
pub fn seconds_ms(text: &str) -> Result<u64, NumberError> {
    decimal_ms(text, MAX_SECONDS)
}

/// A decimal number of at most `limit` as thousandths.
fn decimal_ms(text: &str, limit: u64) -> Result<u64, NumberError> {
    let (int, frac) = split_once(text, b'.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return Err(NumberError::NotANumber);
    }
    let frac = frac.trim_end_matches('0');
    if frac.len() > 3 {
        return Err(NumberError::SubMillisecond);
    }
    let int = int.trim_start_matches('0');
    // At most 8 digits after the zeros: no overflow before the bound; an
    // empty whole part (`.5`) is 0.
    let seconds = if int.len() > 8 { u64::MAX } else { int.parse::<u64>().unwrap_or(0) };
    if seconds > limit {
        return Err(NumberError::TooLarge);
    }
    let millis = frac.bytes().chain(std::iter::repeat(b'0')).take(3);
    Ok(millis.fold(seconds, |acc, b| acc * 10 + u64::from(b - b'0')))
}

/// `text` split around its first `sign`, an ASCII byte, as
/// [`str::split_once`] splits it, by a plain scan: a tag's fields are a few
/// bytes, too short to pay for the char searcher's set-up (every clocked
/// call parses its tag).
fn split_once(text: &str, sign: u8) -> Option<(&str, &str)> {
    let at = text.bytes().position(|b| b == sign)?;
    let (head, rest) = text.split_at(at);
    Some((head, &rest[1..]))
}

/// Whether `text` holds `sign`, an ASCII byte, by a plain scan.
fn has(text: &str, sign: u8) -> bool {
    text.bytes().any(|b| b == sign)
}

fn number_error(period: usize, field: Field, text: &str, why: NumberError) -> TimeControlError {
    let text = match text.char_indices().nth(24) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    };
    TimeControlError::Number { period, field, text, why }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(tag: &str) -> Result<TimeControl, TimeControlError> {
        tag.parse()
    }

    fn periods(list: &[(u32, u64, u64)]) -> TimeControl {
        let periods = list
            .iter()
            .map(|&(moves, time_ms, increment_ms)| Period { moves, time_ms, increment_ms })
            .collect();
        TimeControl::Periods { periods, delay: None }
    }

    fn number(period: usize, field: Field, text: &str, why: NumberError) -> TimeControlError {
        TimeControlError::Number { period, field, text: text.into(), why }
    }

    #[test]
    fn every_form_of_the_tag() {
        assert_eq!(parse(""), Ok(TimeControl::Unknown));
        assert_eq!(parse("?"), Ok(TimeControl::Unknown));
        assert_eq!(parse("-"), Ok(TimeControl::Unlimited));
        assert_eq!(parse("300"), Ok(periods(&[(0, 300_000, 0)])));
        assert_eq!(parse("180+2"), Ok(periods(&[(0, 180_000, 2_000)])));
        assert_eq!(parse("40/5400"), Ok(periods(&[(40, 5_400_000, 0)])));
        assert_eq!(parse("40/5400+30"), Ok(periods(&[(40, 5_400_000, 30_000)])));
        assert_eq!(parse("*180"), Ok(TimeControl::Sandclock { time_ms: 180_000 }));
        assert_eq!(
            parse("40/5400+30:1800+30"),
            Ok(periods(&[(40, 5_400_000, 30_000), (0, 1_800_000, 30_000)]))
        );
        assert_eq!(
            parse("40/7200:20/3600:900"),
            Ok(periods(&[(40, 7_200_000, 0), (20, 3_600_000, 0), (0, 900_000, 0)]))
        );
        // Decimals in the increment, as Python's float() reads them.
        assert_eq!(parse("60+0.5"), Ok(periods(&[(0, 60_000, 500)])));
        assert_eq!(parse("60+.25"), Ok(periods(&[(0, 60_000, 250)])));
        assert_eq!(parse("60+2."), Ok(periods(&[(0, 60_000, 2_000)])));
        assert_eq!(parse("60+0.001000"), Ok(periods(&[(0, 60_000, 1)])));
        assert_eq!(parse("007+01"), Ok(periods(&[(0, 7_000, 1_000)])));
        assert_eq!(parse("0/60"), Ok(periods(&[(0, 60_000, 0)])));
    }

    #[test]
    fn malformed_tags_name_what_is_wrong() {
        use NumberError::*;
        assert_eq!(parse("x"), Err(number(1, Field::Seconds, "x", NotANumber)));
        assert_eq!(parse("40/5400:x"), Err(number(2, Field::Seconds, "x", NotANumber)));
        assert_eq!(parse("a/60"), Err(number(1, Field::Moves, "a", NotANumber)));
        assert_eq!(parse("60+"), Err(number(1, Field::Increment, "", NotANumber)));
        assert_eq!(parse("60+."), Err(number(1, Field::Increment, ".", NotANumber)));
        assert_eq!(parse(" 60"), Err(number(1, Field::Seconds, " 60", NotANumber)));
        assert_eq!(parse("60+-1"), Err(number(1, Field::Increment, "-1", NotANumber)));
        assert_eq!(parse("60.5"), Err(number(1, Field::Seconds, "60.5", NotWhole)));
        assert_eq!(parse("4.5/60"), Err(number(1, Field::Moves, "4.5", NotWhole)));
        assert_eq!(parse("60+0.0005"), Err(number(1, Field::Increment, "0.0005", SubMillisecond)));
        assert_eq!(parse("10000001"), Err(number(1, Field::Seconds, "10000001", TooLarge)));
        assert_eq!(parse("10001/60"), Err(number(1, Field::Moves, "10001", TooLarge)));
        assert_eq!(parse("*"), Err(number(1, Field::Seconds, "", NotANumber)));
        assert_eq!(parse("*60+1"), Err(number(1, Field::Seconds, "60+1", NotANumber)));
        assert_eq!(parse("60:30"), Err(TimeControlError::SuddenDeathNotLast { period: 1 }));
        assert_eq!(parse("60+1+2"), Err(TimeControlError::Repeated { period: 1, sign: '+' }));
        assert_eq!(parse("40/60/7"), Err(TimeControlError::Repeated { period: 1, sign: '/' }));
        assert_eq!(parse("300+5d"), Err(TimeControlError::DelayKindUnstated { period: 1 }));
        assert_eq!(parse("?x"), Err(number(1, Field::Seconds, "?x", NotANumber)));
        assert_eq!(parse("-5"), Err(number(1, Field::Seconds, "-5", NotANumber)));
        assert_eq!(
            parse("1:30:00").unwrap_err().to_string(),
            "period 1 has no move count, but only the last period may be the rest of the game"
        );
    }

    #[test]
    fn absurd_tags_are_errors_not_overflows() {
        let digits = "9".repeat(1 << 20);
        let e = parse(&digits).unwrap_err();
        assert_eq!(
            e,
            number(1, Field::Seconds, &format!("{}…", "9".repeat(24)), NumberError::TooLarge)
        );
        assert!(e.to_string().len() < 80, "{e}");
        let zeros = format!("{}60", "0".repeat(1 << 20));
        assert_eq!(parse(&zeros), Ok(periods(&[(0, 60_000, 0)])));
        let many = "40/60:".repeat(100_000) + "60";
        assert_eq!(parse(&many), Err(TimeControlError::TooManyPeriods { found: 100_001 }));
        let sixteen = "1/1:".repeat(MAX_PERIODS - 1) + "1";
        assert_eq!(parse(&sixteen).unwrap().periods().len(), MAX_PERIODS);
        let max = format!("{MAX_PERIOD_MOVES}/{MAX_SECONDS}+{MAX_SECONDS}");
        assert!(parse(&max).is_ok());
        // Multi-byte text is shortened on a character boundary.
        let e = parse(&"é".repeat(30)).unwrap_err();
        assert_eq!(
            e,
            number(1, Field::Seconds, &format!("{}…", "é".repeat(24)), NumberError::NotANumber)
        );
    }

    #[test]
    fn structured_controls_are_checked_as_tags_are() {
        let g60 = Period { moves: 0, time_ms: 60_000, increment_ms: 0 };
        let d = |ms| Some(Delay { kind: DelayKind::Bronstein, ms });
        assert_eq!(TimeControl::structured(vec![], None), Err(TimeControlError::NoPeriods));
        assert_eq!(
            TimeControl::structured(vec![g60, g60], None),
            Err(TimeControlError::SuddenDeathNotLast { period: 1 })
        );
        assert_eq!(
            TimeControl::structured(vec![g60; MAX_PERIODS + 1], None),
            Err(TimeControlError::TooManyPeriods { found: MAX_PERIODS + 1 })
        );
        let huge = Period { time_ms: u64::MAX, ..g60 };
        assert!(matches!(
            TimeControl::structured(vec![huge], None),
            Err(TimeControlError::Number { field: Field::Seconds, why: NumberError::TooLarge, .. })
        ));
        assert_eq!(
            TimeControl::structured(vec![g60], d(u64::MAX)),
            Err(TimeControlError::DelayTooLarge { ms: u64::MAX })
        );
        let tc = TimeControl::structured(vec![g60], d(5_000)).unwrap();
        assert_eq!(tc.periods(), [g60]);
    }
}
