//! The TimeControl tag against python-chess 1.11's parse
//! (`chess.pgn.parse_time_control`, behind `Game.time_control()`), on the
//! tags of `data/time_controls.tsv`, written by `data/time_controls.py`
//! (its docstring says what each kind of line asks of Arbiter).

use arbiter_chess::{Period, TimeControl};

/// python-chess's periods: `M,S,I;M,S,I...`, the increment as Python's
/// repr of a float (or `0`).
fn python_periods(text: &str) -> Vec<(u32, u64, f64)> {
    text.split(';')
        .map(|p| {
            let f: Vec<&str> = p.split(',').collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

/// Ours as python-chess writes them. The increment in seconds is the
/// float nearest to the exact milliseconds / 1000 (IEEE division rounds
/// correctly), as Python's float() of the same decimal is.
fn as_python(p: &Period) -> (u32, u64, f64) {
    (p.moves, p.time_ms / 1000, p.increment_ms as f64 / 1000.0)
}

#[test]
fn time_control_tags_agree_with_python_chess() {
    let fixture = include_str!("../data/time_controls.tsv");
    let mut counts = [0usize; 3];
    for line in fixture.lines() {
        let [kind, tag, python] = line.split('\t').collect::<Vec<_>>()[..] else {
            panic!("malformed fixture line {line:?}");
        };
        let ours = tag.parse::<TimeControl>();
        let python_rejects = python.starts_with("error ");
        match kind {
            "same" => {
                counts[0] += 1;
                match (python, &ours) {
                    ("unknown", Ok(TimeControl::Unknown)) => {}
                    ("unlimited", Ok(TimeControl::Unlimited)) => {}
                    (_, Err(_)) if python_rejects => {}
                    (_, Ok(TimeControl::Periods { periods, delay: None })) => {
                        let expected = python.strip_prefix("periods ").unwrap_or_else(|| {
                            panic!("{tag:?}: python-chess says {python:?}, we {ours:?}")
                        });
                        let ours: Vec<_> = periods.iter().map(as_python).collect();
                        assert_eq!(ours, python_periods(expected), "{tag:?}");
                    }
                    _ => panic!("{tag:?}: python-chess says {python:?}, we {ours:?}"),
                }
            }
            "sandclock" => {
                counts[1] += 1;
                assert!(python_rejects, "{tag:?}: python-chess says {python:?}");
                let seconds: u64 = tag[1..].parse().unwrap();
                assert_eq!(ours, Ok(TimeControl::Sandclock { time_ms: seconds * 1000 }), "{tag:?}");
            }
            "lenient" => {
                counts[2] += 1;
                assert!(!python_rejects, "{tag:?}: python-chess rejects it: {python}");
                assert!(ours.is_err(), "{tag:?}: python-chess says {python:?}, we {ours:?}");
            }
            _ => panic!("unknown kind {kind:?}"),
        }
    }
    // The fixture is what it says: a few hundred tags of each kind.
    assert!(counts[0] > 300 && counts[1] >= 4 && counts[2] > 40, "{counts:?}");
}
