use arbiter::chess::Position;
use arbiter::chess::dead::{is_dead, worth_a_full_look};
use arbiter::chess::unwinnable::Budget;
use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let mut times = Vec::new();
    let (mut n, mut gated, mut dead) = (0, 0, 0);
    let t0 = Instant::now();
    for line in text.lines().filter(|l| !l.starts_with('#') && l.len() > 3) {
        let mut fen: Vec<&str> = line.split_ascii_whitespace().collect();
        if fen[0].len() == 2 && !fen[0].contains('/') {
            fen.remove(0);
        }
        fen.truncate(6);
        while (2..4).contains(&fen.len()) {
            fen.push("-");
        }
        let Ok(p) = Position::from_fen_lenient_material(&fen.join(" ")) else { continue };
        n += 1;
        let t = Instant::now();
        if worth_a_full_look(&p) {
            gated += 1;
            if is_dead(&p, Budget::FULL) {
                dead += 1;
            }
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pct = |q: f64| times.get(((times.len() as f64 - 1.0) * q) as usize).copied().unwrap_or(0.0);
    println!(
        "{n} positions, {gated} gated, {dead} dead; total {:.2}s; gated µs: p50 {:.1} p90 {:.1} p99 {:.1} max {:.1} mean {:.1}",
        t0.elapsed().as_secs_f64(),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(1.0),
        times.iter().sum::<f64>() / times.len().max(1) as f64
    );
}
