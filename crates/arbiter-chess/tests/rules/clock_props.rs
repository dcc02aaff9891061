//! Properties of the clock: its arithmetic against a model written apart
//! from it (remaining time never drifts), flag falls, the delays, the
//! sandclock, and the tag parser on any text.

use arbiter_chess::{Clock, Color, Delay, DelayKind, Period, TimeControl};
use proptest::prelude::*;

fn control() -> impl Strategy<Value = TimeControl> {
    let period = (1u32..=5, 0u64..=100_000, 0u64..=5_000);
    let last = (0u32..=5, 0u64..=100_000, 0u64..=5_000);
    let kind = prop_oneof![Just(DelayKind::Bronstein), Just(DelayKind::Simple)];
    let delay =
        proptest::option::of((kind, 0u64..=5_000).prop_map(|(kind, ms)| Delay { kind, ms }));
    (proptest::collection::vec(period, 0..=3), last, delay).prop_map(|(mut list, last, delay)| {
        list.push(last);
        let periods = list
            .into_iter()
            .map(|(moves, time_ms, increment_ms)| Period { moves, time_ms, increment_ms })
            .collect();
        TimeControl::structured(periods, delay).unwrap()
    })
}

fn times() -> impl Strategy<Value = Vec<u64>> {
    proptest::collection::vec(prop_oneof![0u64..=2_000, 0u64..=60_000], 0..=80)
}

/// For the `n`th move of a side (from 1): the period it is made in, and
/// whether it completes that period — walking the periods one move at a
/// time, the last repeating.
fn period_of(periods: &[Period], n: u32) -> (usize, bool) {
    let mut index = 0;
    let mut left = periods[0].moves;
    for _ in 1..n {
        if periods[index].moves > 0 {
            left -= 1;
            if left == 0 {
                index = (index + 1).min(periods.len() - 1);
                left = periods[index].moves;
            }
        }
    }
    (index, periods[index].moves > 0 && left == 1)
}

/// Plays the times until a flag falls; the number of moves played.
fn play_all(clock: &mut Clock, times: &[u64]) -> usize {
    times.iter().take_while(|&&t| clock.play(t).is_ok()).count()
}

proptest! {
    #[test]
    fn remaining_time_never_drifts(tc in control(), times in times(), black_first: bool) {
        let first = if black_first { Color::Black } else { Color::White };
        let mut clock = Clock::new(&tc, first).unwrap();
        let played = play_all(&mut clock, &times);
        let TimeControl::Periods { periods, delay } = &tc else { unreachable!() };
        let delay_ms = delay.map_or(0, |d| d.ms);
        for (side, start) in [(first, 0), (!first, 1)] {
            // Granted: the first period, every increment, every bonus.
            let mut granted = periods[0].time_ms;
            let mut charged = 0;
            for (n, &t) in (1..).zip(times[..played].iter().skip(start).step_by(2)) {
                let (index, completes) = period_of(periods, n);
                granted += periods[index].increment_ms;
                if completes {
                    granted += periods[(index + 1).min(periods.len() - 1)].time_ms;
                }
                charged += t - t.min(delay_ms);
            }
            prop_assert_eq!(clock.remaining_ms(side) + charged, granted);
        }
    }

    #[test]
    fn a_flag_falls_exactly_past_the_time(tc in control(), times in times()) {
        let mut clock = Clock::new(&tc, Color::White).unwrap();
        let simple = matches!(tc, TimeControl::Periods { delay: Some(Delay { kind: DelayKind::Simple, .. }), .. });
        let delay_ms = match tc { TimeControl::Periods { delay: Some(d), .. } => d.ms, _ => 0 };
        for t in times {
            let mover = clock.turn();
            let before = (clock.remaining_ms(Color::White), clock.remaining_ms(Color::Black));
            let allowance = clock.remaining_ms(mover) + if simple { delay_ms } else { 0 };
            prop_assert_eq!(clock.flag_fell(t), t > allowance);
            match clock.play(t) {
                Ok(after) => {
                    prop_assert!(t <= allowance);
                    prop_assert_eq!(after, clock.remaining_ms(mover));
                    prop_assert_eq!(clock.turn(), !mover);
                }
                Err(fell) => {
                    prop_assert!(t > allowance);
                    prop_assert_eq!((fell.mover, fell.remaining_ms, fell.taken_ms), (mover, allowance - if simple { delay_ms } else { 0 }, t));
                    let now = (clock.remaining_ms(Color::White), clock.remaining_ms(Color::Black));
                    prop_assert_eq!(now, before);
                    prop_assert_eq!(clock.turn(), mover);
                }
            }
        }
    }

    #[test]
    fn both_delays_leave_the_same_time(
        periods in control().prop_map(|tc| tc.periods().to_vec()),
        ms in 0u64..=5_000,
        times in times(),
    ) {
        let clock = |kind| {
            let tc = TimeControl::structured(periods.clone(), Some(Delay { kind, ms })).unwrap();
            Clock::new(&tc, Color::White).unwrap()
        };
        let (mut bronstein, mut simple) = (clock(DelayKind::Bronstein), clock(DelayKind::Simple));
        for t in times {
            match (bronstein.play(t), simple.play(t)) {
                (Ok(b), Ok(s)) => prop_assert_eq!(b, s),
                // A simple delay holds the flag longer, never shorter.
                (Err(_), _) => break,
                (Ok(_), Err(_)) => prop_assert!(false, "simple flag fell before Bronstein's"),
            }
        }
    }

    #[test]
    fn a_sandclock_keeps_its_sand(seconds in 0u64..=600, times in times()) {
        let mut clock = Clock::new(&TimeControl::Sandclock { time_ms: seconds * 1000 }, Color::White).unwrap();
        play_all(&mut clock, &times);
        prop_assert_eq!(clock.remaining_ms(Color::White) + clock.remaining_ms(Color::Black), 2 * seconds * 1000);
    }

    #[test]
    fn written_tags_read_back(tc in control()) {
        // A tag says no delay: write the periods alone.
        let periods = tc.periods();
        let tag = periods
            .iter()
            .map(|p| {
                let moves = if p.moves > 0 { format!("{}/", p.moves) } else { String::new() };
                let inc = format!("+{}.{:03}", p.increment_ms / 1000, p.increment_ms % 1000);
                format!("{moves}{}{inc}", p.time_ms / 1000)
            })
            .collect::<Vec<_>>()
            .join(":");
        let whole: Vec<Period> = periods.iter().map(|p| Period { time_ms: p.time_ms / 1000 * 1000, ..*p }).collect();
        prop_assert_eq!(tag.parse::<TimeControl>().map(|tc| tc.periods().to_vec()), Ok(whole));
    }

    #[test]
    fn any_text_parses_or_errs(tag in "\\PC{0,40}", near in "[0-9/+:.*?d-]{0,24}") {
        // No panic; an error always says something.
        for t in [tag, near] {
            if let Err(e) = t.parse::<TimeControl>() {
                prop_assert!(!e.to_string().is_empty());
            }
        }
    }
}
