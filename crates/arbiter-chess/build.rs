//! Reads the opening table (`data/openings.tsv`) at build time into Rust
//! (`$OUT_DIR/openings.rs`): each line's ECO code, its name, and its EPD's
//! placement as twelve bitboards, one per piece letter of `PNBRQKpnbrqk`,
//! with its side to move and castling. A line whose EPD has an en passant
//! square keeps its EPD: whether the capture is legal is the rules' to
//! say, at run time. The program then sets up no position from text but
//! those, and builds its hash table in well under a millisecond.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

const LETTERS: &str = "PNBRQKpnbrqk";

fn main() {
    println!("cargo::rerun-if-changed=data/openings.tsv");
    let table = fs::read_to_string("data/openings.tsv").expect("data/openings.tsv");
    let mut out = String::from("[\n");
    for (number, row) in table.lines().enumerate().skip(1) {
        let fields: Vec<&str> = row.split('\t').collect();
        let &[eco, name, _pgn, epd] = fields.as_slice() else {
            panic!("data/openings.tsv line {}: not four fields", number + 1)
        };
        let epd_fields: Vec<&str> = epd.split(' ').collect();
        let &[placement, turn, castling, ep] = epd_fields.as_slice() else {
            panic!("data/openings.tsv line {}: not a four-field EPD", number + 1)
        };
        let mut pieces = [0u64; 12];
        let (mut file, mut rank) = (0u32, 7u32);
        for c in placement.chars() {
            match c {
                '/' => (file, rank) = (0, rank.wrapping_sub(1)),
                '1'..='8' => file += c as u32 - '0' as u32,
                _ => {
                    let letter = LETTERS.find(c).unwrap_or_else(|| {
                        panic!("data/openings.tsv line {}: piece {c:?}", number + 1)
                    });
                    assert!(file < 8 && rank < 8, "data/openings.tsv line {}", number + 1);
                    pieces[letter] |= 1 << (8 * rank + file);
                    file += 1;
                }
            }
        }
        let black = match turn {
            "w" => false,
            "b" => true,
            _ => panic!("data/openings.tsv line {}: side to move {turn:?}", number + 1),
        };
        assert!(
            castling == "-" || castling.chars().all(|c| "KQkq".contains(c)),
            "data/openings.tsv line {}: castling {castling:?}",
            number + 1
        );
        let epd = if ep == "-" { "None".to_owned() } else { format!("Some({epd:?})") };
        writeln!(
            out,
            "    RawLine {{ eco: {eco:?}, name: {name:?}, pieces: {pieces:?}, black: {black}, \
             castling: {castling:?}, epd: {epd} }},"
        )
        .expect("a string takes any write");
    }
    out.push_str("]\n");
    let path = Path::new(&env::var_os("OUT_DIR").expect("OUT_DIR")).join("openings.rs");
    fs::write(path, out).expect("$OUT_DIR/openings.rs");
}
