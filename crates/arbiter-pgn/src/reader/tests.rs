//! The reader's tests: games cut from text as a whole and in pieces.

use super::*;

fn games(text: &str, max: usize) -> Vec<RawGame> {
    let reader = GameReader::new(text.as_bytes(), ReaderOptions { max_game_bytes: max });
    reader.collect::<io::Result<Vec<_>>>().unwrap()
}

fn texts(text: &str) -> Vec<String> {
    games(text, 1 << 20).into_iter().map(|g| String::from_utf8(g.text.unwrap()).unwrap()).collect()
}

#[test]
fn games_end_at_result_tokens_and_tag_lines() {
    let text = "\u{feff}[Event \"a\"]\r\n\r\n1. e4 {1-0 in a comment} (1. d4 1-0) e5 *\r\n\
                [Event \"b\"]\n\n1. d4\n[Event \"c\"]\n";
    assert_eq!(
        texts(text),
        [
            "[Event \"a\"]\r\n\r\n1. e4 {1-0 in a comment} (1. d4 1-0) e5 *\r\n",
            "[Event \"b\"]\n\n1. d4\n",
            "[Event \"c\"]\n"
        ]
    );
    let lines: Vec<usize> = games(text, 1 << 20).iter().map(|g| g.line).collect();
    assert_eq!(lines, [1, 4, 7]);
}

#[test]
fn tag_only_games_end_at_a_blank_line() {
    let text = "[Event \"a\"]\n[Result \"*\"]\n\n[Event \"b\"]\n\n\n\n[Event \"c\"]\n";
    assert_eq!(texts(text).len(), 3);
    // A blank line between tags of one game (ChessBase).
    let text = "[Event \"a\"]\n\n[Date \"?\"]\n\n1. e4 *\n[Event \"b\"]\n\n[Event \"c\"]\n";
    assert_eq!(texts(text).len(), 3);
}

/// More tag names than are searched one by one: the set that takes
/// over tells a repeated name after a blank line (a new game) as the
/// search does, before a game of tags only and before one whose
/// movetext begins on its tag line.
#[test]
fn many_tags_after_blank_lines() {
    let tags: String = (0..40).map(|i| format!("[T{i} \"x\"]\n\n")).collect();
    let text = format!("{tags}[T35 \"y\"]\n\n[T40 \"z\"]\n");
    let cut = texts(&text);
    assert_eq!(cut.len(), 2);
    assert!(cut[1].starts_with("[T35 \"y\"]"), "{:?}", cut[1]);
    let text = format!("{tags}[T40 \"y\"]\n\n[T3 \"z\"] 1. e4 *\n");
    let cut = texts(&text);
    assert_eq!(cut.len(), 2);
    assert_eq!(cut[1], "[T3 \"z\"] 1. e4 *\n");
}

#[test]
fn blank_lines_inside_movetext_and_comments_do_not_split() {
    let text = "[Event \"a\"]\n\n1. e4 e5\n\n2. Nf3 {a comment\n[%clk 0:01:00]\n\nstill} Nc6 1-0\n";
    assert_eq!(texts(text).len(), 1);
}

#[test]
fn a_game_over_the_limit_is_skipped_and_reading_goes_on() {
    let long = "1. e4 e5 ".repeat(50);
    let text = format!("[Event \"a\"]\n\n{long}\n{long} 1-0\n[Event \"b\"]\n\n1. d4 *\n");
    let read = games(&text, 300);
    assert_eq!(read.len(), 2);
    assert_eq!(read[0].text, Err(text.find("[Event \"b\"]").unwrap() as u64));
    assert_eq!(read[1].line, 5);
    assert_eq!(read[1].text.as_deref(), Ok(&b"[Event \"b\"]\n\n1. d4 *\n"[..]));
    // A single line over the limit, with no line end at all.
    let read = games(&"x".repeat(10_000), 100);
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].text, Err(10_000));
}

#[test]
fn escape_lines_and_leading_blank_lines_are_not_games() {
    assert!(texts("\n\n% nothing here\n\n").is_empty());
    let read = games("\n% x\n\n[Event \"a\"]\n1. e4 *\n", 1 << 20);
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].line, 4);
}

/// Pushed in pieces of any size, the stream cuts into the same games.
#[test]
fn pieces_of_any_size_cut_the_same_games() {
    let long = "1. e4 e5 ".repeat(40);
    let text = format!(
        "\u{feff}\n% x\n[Event \"a\"]\r\n\r\n1. e4 {{1-0}} (1. d4 1-0) e5 *\r\n\
         [Event \"b\"]\n\n{long}\n{long} 1-0\n[Event \"c\"]\n\n[Event \"d\"]\n1. d4"
    );
    let whole = games(&text, 300);
    assert_eq!(whole.len(), 4);
    assert_eq!(
        whole[1].text,
        Err((text.find("[Event \"c").unwrap() - text.find("[Event \"b").unwrap()) as u64)
    );
    for size in 1..=text.len() {
        let mut splitter = Splitter::new(ReaderOptions { max_game_bytes: 300 });
        let mut cut = VecDeque::new();
        for piece in text.as_bytes().chunks(size) {
            splitter.push(piece, &mut cut);
        }
        splitter.finish(&mut cut);
        let texts = |games: &[RawGame]| -> Vec<(usize, usize, Result<Vec<u8>, u64>)> {
            games.iter().map(|g| (g.index, g.line, g.text.clone())).collect()
        };
        assert_eq!(texts(&Vec::from(cut)), texts(&whole), "pieces of {size} bytes");
    }
}

/// Texts made of PGN's pieces in random order (`count` of them, up to
/// 60 pieces each, from a fixed seed): what cutting may misread.
pub(crate) fn random_texts(count: usize) -> impl Iterator<Item = String> {
    const PIECES: &[&str] = &[
        "[Event \"a\"]",
        "[Site \"b\"]",
        "[Event \"x\"] [Round \"1\"]",
        "\n",
        "\n",
        "\r\n",
        " ",
        "1.",
        "e4",
        "e5",
        "Nf3",
        "(",
        ")",
        "{",
        "}",
        "{c [x] \n[y}",
        ";",
        "% esc",
        "1-0",
        "0-1",
        "1/2-1/2",
        "*",
        "$14",
        "!?",
        "[",
        "\"",
        "\\",
        "\u{feff}",
        "O-O",
        "\n[Event \"b\"]\n",
        "12...",
        "\t",
        // What the cut's skimming (past a line's first move) must not
        // misread: results glued to tokens, form feeds, NAG digits.
        "\x0c",
        "$1",
        "-0",
        "e1",
        "Rd1",
        "1",
        "0",
        "*x",
        "%",
        "1-0x",
        // The cut reads the token around a `-` or `*` from where the
        // tokenizer last stood between tokens.
        "-",
        "1/2",
        "e2-e4",
        "\x0c1-0",
        "$2-",
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..count).map(move |_| {
        let len = (next() % 60) as usize;
        (0..len).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect()
    })
}

/// Games read into the vectors of games handed back (in pieces of 16
/// bytes: games read in part are given back too) are the games read
/// afresh.
#[test]
fn games_read_into_recycled_vectors_are_the_same() {
    for (case, text) in random_texts(2000).enumerate() {
        let options = ReaderOptions { max_game_bytes: [40, 120, 1 << 20][case % 3] };
        let fresh: Vec<RawGame> =
            GameReader::new(text.as_bytes(), options).collect::<io::Result<_>>().unwrap();
        let input = io::BufReader::with_capacity(16, text.as_bytes());
        let mut reader = GameReader::new(input, options);
        let mut count = 0;
        while let Some(raw) = reader.next_game().unwrap() {
            let read = raw.into_game();
            assert_eq!(read, fresh[count].clone().into_game(), "{text:?}");
            if let (_, _, Ok(game)) = read {
                reader.recycle(game);
            }
            count += 1;
        }
        assert_eq!(count, fresh.len());
    }
}

/// Texts made of PGN's pieces in random order: the one-pass reader cuts
/// the same games as the line-by-line splitter, and reads each as its
/// text reads on its own.
#[test]
fn one_pass_reading_agrees_with_the_splitter_and_the_parser() {
    for (case, text) in random_texts(6000).enumerate() {
        let max = [40, 120, 1 << 20][case % 3];
        let options = ReaderOptions { max_game_bytes: max };
        let read: Vec<RawGame> =
            GameReader::new(io::BufReader::with_capacity(16, text.as_bytes()), options)
                .collect::<io::Result<_>>()
                .unwrap();
        let mut splitter = Splitter::new(options);
        let mut pushed = VecDeque::new();
        for piece in text.as_bytes().chunks(5) {
            splitter.push(piece, &mut pushed);
        }
        splitter.finish(&mut pushed);
        let cut = |games: &[RawGame]| -> Vec<(usize, usize, Result<Vec<u8>, u64>)> {
            games.iter().map(|g| (g.index, g.line, g.text.clone())).collect()
        };
        assert_eq!(cut(&read), cut(&Vec::from(pushed)), "{text:?} (limit {max})");
        for raw in read {
            let text = raw.text.clone();
            let (_, _, game) = raw.into_game();
            if let (Ok(game), Ok(text)) = (game, text) {
                assert_eq!(game, parse_game(text.clone()), "{text:?}");
            }
        }
    }
}
