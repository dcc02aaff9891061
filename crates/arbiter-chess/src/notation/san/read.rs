//! Reading SAN: the forms people write, leniently and never guessing, and
//! the one legal move a SAN names in a position.

use std::str::FromStr;

use super::{CastlingSide, ParseSanError, San, SanError, SanMove};
use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind, MoveList};
use crate::board::position::Position;
use crate::board::types::{File, Rank, Role, Square};
use crate::notation::echo::MoveText;

/// Strips what may trail a move: annotations (`!`, `?`), check and mate
/// marks, and an en-passant remark (`e.p.`, with or without a space).
#[inline]
fn strip_suffixes(mut s: &str) -> &str {
    loop {
        match s.as_bytes().last() {
            // An ASCII byte: the slice stays on a character boundary.
            Some(b'!' | b'?' | b'+' | b'#') => s = &s[..s.len() - 1],
            Some(b'.') => match s.strip_suffix("e.p.") {
                Some(rest) => s = rest.trim_end(),
                None => return s,
            },
            _ => return s,
        }
    }
}

/// The file of a letter `a` to `h`.
#[inline]
fn file_of(c: u8) -> Option<File> {
    File::new(u32::from(c.wrapping_sub(b'a')))
}

/// The rank of a digit `1` to `8`.
#[inline]
fn rank_of(c: u8) -> Option<Rank> {
    Rank::new(u32::from(c.wrapping_sub(b'1')))
}

impl FromStr for San {
    type Err = ParseSanError;

    /// Reads canonical SAN and the harmless variants people write: `0-0`,
    /// missing or extra `+`/`#`, `e8Q`, long algebraic (`Ng1-f3`, `Ng1f3`,
    /// `Bb5xc6`, `e2-e4`), over-disambiguation, `exd6 e.p.`, `!`/`?`
    /// annotations, and lower-case piece letters where the text cannot be a
    /// pawn move (`ng1-f3`, `rd3`, `bb5xc6`; but `bxc6` is a pawn capture).
    ///
    /// # Errors
    ///
    /// [`ParseSanError`] if the text is none of these.
    ///
    /// ```
    /// use arbiter_chess::San;
    /// assert_eq!("Ng1-f3".parse::<San>(), "Ng1f3".parse::<San>());
    /// assert_eq!("0-0".parse::<San>(), "O-O".parse::<San>());
    /// assert!("Nf9".parse::<San>().is_err());
    /// ```
    // Inlined into the replay, as `San::find` is: the parsed SAN went
    // through memory between the calls.
    #[inline(always)]
    fn from_str(text: &str) -> Result<San, ParseSanError> {
        San::read(text)
    }
}

/// The piece an upper-case letter names in SAN (not `P`: a pawn has none).
#[inline(always)]
fn piece_letter(c: u8) -> Option<Role> {
    match c {
        b'N' => Some(Role::Knight),
        b'B' => Some(Role::Bishop),
        b'R' => Some(Role::Rook),
        b'Q' => Some(Role::Queen),
        b'K' => Some(Role::King),
        _ => None,
    }
}

impl San {
    /// [`San::from_str`] for any [`MoveText`]: the common forms from its
    /// bytes, the rest from its text.
    #[inline(always)]
    pub(crate) fn read<T: MoveText + ?Sized>(text: &T) -> Result<San, ParseSanError> {
        match San::read_common(text.bytes()) {
            Some(san) => Ok(san),
            None => San::read_any(text.text()),
        }
    }

    /// The forms nearly every game is written in, read straight from the
    /// bytes: `e4`, `Nf3`, `Nxe5`, `exd5`, `Nbd7`, `R1e2`, `e8=Q` and
    /// castling, each with or without one `+` or `#`. `None` for any other
    /// text, which [`San::read_any`] then reads: for the texts it takes this
    /// gives what that would (a test compares them over every short text).
    #[inline(always)]
    fn read_common(text: &[u8]) -> Option<San> {
        let b = match *text {
            [ref body @ .., _, _, b'+' | b'#'] => &text[..body.len() + 2],
            _ => text,
        };
        let normal = |role, file, rank, capture, to| San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion: None,
        };
        let square = Square::from_name;
        Some(match *b {
            [f, r] => normal(Role::Pawn, None, None, false, square(f, r)?),
            [p, f, r] => match piece_letter(p) {
                Some(role) => normal(role, None, None, false, square(f, r)?),
                None if b == b"O-O" => San::Castle(CastlingSide::KingSide),
                None => return None,
            },
            [p, x, f, r] => {
                let to = square(f, r)?;
                match (piece_letter(p), x) {
                    (Some(role), b'x') => normal(role, None, None, true, to),
                    (Some(role), _) => match (file_of(x), rank_of(x)) {
                        (Some(file), _) => normal(role, Some(file), None, false, to),
                        (_, Some(rank)) => normal(role, None, Some(rank), false, to),
                        _ => return None,
                    },
                    (None, b'x') => normal(Role::Pawn, Some(file_of(p)?), None, true, to),
                    (None, _) => {
                        // `e8=Q`: the target square first.
                        let (to, promotion) = match (square(p, x), f, piece_letter(r)) {
                            (Some(to), b'=', Some(role)) if role != Role::King => (to, role),
                            _ => return None,
                        };
                        San::Normal {
                            role: Role::Pawn,
                            file: None,
                            rank: None,
                            capture: false,
                            to,
                            promotion: Some(promotion),
                        }
                    }
                }
            }
            _ if b == b"O-O-O" => San::Castle(CastlingSide::QueenSide),
            _ => return None,
        })
    }

    /// Reads any form [`San::from_str`] takes, the lenient ones too.
    #[inline(never)]
    fn read_any(text: &str) -> Result<San, ParseSanError> {
        // Most texts have nothing to trim: an ASCII letter, digit or sign at
        // either end is not white space.
        let ends = text.as_bytes().first().zip(text.as_bytes().last());
        let trimmed = match ends {
            Some((first, last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
            _ => text.trim(),
        };
        let s = strip_suffixes(trimmed);
        let mut b = s.as_bytes();
        if let [b'O' | b'0' | b'o', ..] = b {
            match b {
                b"O-O" | b"0-0" | b"o-o" => return Ok(San::Castle(CastlingSide::KingSide)),
                b"O-O-O" | b"0-0-0" | b"o-o-o" => {
                    return Ok(San::Castle(CastlingSide::QueenSide));
                }
                _ => {}
            }
        }
        // A drop: `N@f3`, `@e4` or `P@e4`, the piece letter in either case.
        match *b {
            [b'@', f, r] => return read_put(b'P', f, r),
            [p, b'@', f, r] => return read_put(p, f, r),
            _ => {}
        }
        // Every byte left is checked below against ASCII letters, digits and
        // signs, so any other text is refused on the way.

        // Promotion: `=Q`, `/Q`, `(Q)` or a bare `Q` after the target square.
        let mut promotion = None;
        let letter = match *b {
            [ref rest @ .., b'(', l, b')'] | [ref rest @ .., b'=' | b'/', l] => Some((rest, l)),
            [.., d, l] if d.is_ascii_digit() && l.is_ascii_alphabetic() => {
                Some((&b[..b.len() - 1], l))
            }
            _ => None,
        };
        if let Some((rest, l)) = letter {
            promotion = Some(Role::from_char(l as char).ok_or(ParseSanError)?);
            b = rest;
        }

        // Target square.
        let [ref rest @ .., f, r] = *b else { return Err(ParseSanError) };
        let to = Square::from_name(f, r).ok_or(ParseSanError)?;
        b = rest;

        // Separator: capture mark or long-algebraic dash.
        let (capture, dash) = match *b {
            [ref rest @ .., b'x' | b':'] => {
                b = rest;
                (true, false)
            }
            [ref rest @ .., b'-'] => {
                b = rest;
                (false, true)
            }
            _ => (false, false),
        };

        // Disambiguation or the from-square of long algebraic.
        let mut rank = None;
        if let [ref rest @ .., c] = *b
            && let Some(r) = rank_of(c)
        {
            rank = Some(r);
            b = rest;
        }
        let mut file = None;
        if let [ref rest @ .., c] = *b
            && let Some(f) = file_of(c)
        {
            file = Some(f);
            b = rest;
        }
        if dash && (file.is_none() || rank.is_none()) {
            return Err(ParseSanError);
        }

        let role = match *b {
            [] => {
                // `bc6` (a file, no capture mark, no rank) is not pawn syntax:
                // it is the bishop move written in lower case.
                if file == Some(File::B) && rank.is_none() && !capture && promotion.is_none() {
                    file = None;
                    Role::Bishop
                } else {
                    Role::Pawn
                }
            }
            [c] if c.is_ascii_uppercase() => Role::from_char(c as char).ok_or(ParseSanError)?,
            [c @ (b'n' | b'b' | b'r' | b'q' | b'k' | b'p')] => {
                Role::from_char(c as char).ok_or(ParseSanError)?
            }
            _ => return Err(ParseSanError),
        };
        if role == Role::Pawn && file.is_none() && capture {
            return Err(ParseSanError);
        }
        Ok(San::Normal { role, file, rank, capture, to, promotion })
    }
}

/// A drop of the piece lettered `piece` (not a king) on the square `f`,
/// `r`.
#[cold]
fn read_put(piece: u8, f: u8, r: u8) -> Result<San, ParseSanError> {
    let role = Role::from_char(piece as char).filter(|&role| role != Role::King);
    match (role, Square::from_name(f, r)) {
        (Some(role), Some(to)) => Ok(San::Put { role, to }),
        _ => Err(ParseSanError),
    }
}

impl San {
    /// The one legal move this SAN names in `pos`.
    ///
    /// # Errors
    ///
    /// [`SanError::Illegal`] if no legal move fits, [`SanError::Ambiguous`]
    /// if several do. Why a move is illegal is answered by
    /// [`crate::notation::illegal::diagnose_san`].
    ///
    /// ```
    /// use arbiter_chess::{Position, San, SanError};
    /// let pos: Position = "4k3/8/8/8/8/8/8/1N1K1N2 w - - 0 1".parse().unwrap();
    /// let nd2: San = "Nd2".parse().unwrap();
    /// assert_eq!(nd2.to_move(&pos), Err(SanError::Ambiguous));
    /// let nbd2: San = "Nbd2".parse().unwrap();
    /// assert!(nbd2.to_move(&pos).is_ok());
    /// let ng4: San = "Ng4".parse().unwrap();
    /// assert_eq!(ng4.to_move(&pos), Err(SanError::Illegal));
    /// ```
    pub fn to_move(&self, pos: &Position) -> Result<Move, SanError> {
        self.find(pos).map(|found| found.mv)
    }

    /// As [`San::to_move`], keeping what writing the move's canonical SAN
    /// needs, so that it is not looked up twice.
    // Inlined into the replay: its result went through memory.
    #[inline(always)]
    pub(crate) fn find(&self, pos: &Position) -> Result<SanMove, SanError> {
        let (role, file, rank, to, promotion) = match *self {
            San::Castle(side) => return find_castle(pos, side),
            San::Normal { role, file, rank, to, promotion, .. } => {
                (role, file, rank, to, promotion)
            }
            San::Put { .. } => return Err(SanError::Illegal),
        };
        // The promotion asked for fits or not whichever piece moves: it is
        // compulsory for a pawn reaching the last rank, absent elsewhere.
        let kind = if role == Role::Pawn && to.rank() == Rank::Eighth.relative_to(pos.turn()) {
            match promotion {
                Some(p @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen)) => {
                    MoveKind::Promotion(p)
                }
                _ => return Err(SanError::Illegal),
            }
        } else if promotion.is_some() {
            return Err(SanError::Illegal);
        } else {
            MoveKind::Normal
        };
        // Every piece of the kind that can go there: those the text names
        // are the candidates, the others are what disambiguation is about.
        let movers = pos.movers_to(role, Bitboard::FULL, to);
        let mut named = movers;
        if let Some(f) = file {
            named &= Bitboard::from_file(f);
        }
        if let Some(r) = rank {
            named &= Bitboard::from_rank(r);
        }
        let Some(from) = named.single_square() else {
            return Err(if named.any() { SanError::Ambiguous } else { SanError::Illegal });
        };
        // A pawn that goes to another file onto an empty square takes en
        // passant.
        let kind = if role == Role::Pawn
            && kind == MoveKind::Normal
            && from.file() != to.file()
            && !pos.occupied().contains(to)
        {
            MoveKind::EnPassant
        } else {
            kind
        };
        Ok(SanMove { mv: Move::new(from, to, kind), role, rivals: movers.without(from) })
    }
}

/// The castling move to `side` in `pos`: [`San::find`] for `O-O` and `O-O-O`.
#[inline(never)]
fn find_castle(pos: &Position, side: CastlingSide) -> Result<SanMove, SanError> {
    // Only castling itself is generated: the king's steps never end on
    // its own rook, and a king in check does not castle.
    let mut moves = MoveList::new();
    if !pos.is_check() {
        pos.generate_castling(pos.king_of(pos.turn()), castling_rooks(pos, side), &mut moves);
    }
    let mut castles = moves.iter().filter(|m| m.is_castle());
    match (castles.next(), castles.next()) {
        (Some(&mv), None) => Ok(SanMove::castle(mv)),
        (Some(_), Some(_)) => Err(SanError::Ambiguous),
        (None, _) => Err(SanError::Illegal),
    }
}

/// Castling rooks of the side to move on `side` of its king.
pub(crate) fn castling_rooks(pos: &Position, side: CastlingSide) -> Bitboard {
    let king = pos.king_of(pos.turn());
    let rights = pos.castling_rights() & Bitboard::from_rank(pos.turn().back_rank());
    rights.into_iter().filter(|&rook| (rook > king) == (side == CastlingSide::KingSide)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal(text: &str) -> (Role, Option<File>, Option<Rank>, bool, Square, Option<Role>) {
        match text.parse::<San>() {
            Ok(San::Normal { role, file, rank, capture, to, promotion }) => {
                (role, file, rank, capture, to, promotion)
            }
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn reads_the_variants_people_write() {
        use Role::*;
        assert_eq!(normal("e4"), (Pawn, None, None, false, Square::E4, None));
        assert_eq!(normal("exd5"), (Pawn, Some(File::E), None, true, Square::D5, None));
        assert_eq!(normal("e8=Q+"), (Pawn, None, None, false, Square::E8, Some(Queen)));
        assert_eq!(normal("e8Q"), (Pawn, None, None, false, Square::E8, Some(Queen)));
        assert_eq!(normal("e8(Q)"), (Pawn, None, None, false, Square::E8, Some(Queen)));
        assert_eq!(normal("exd8=N#"), (Pawn, Some(File::E), None, true, Square::D8, Some(Knight)));
        assert_eq!(
            normal("e7e8b"),
            (Pawn, Some(File::E), Some(Rank::Seventh), false, Square::E8, Some(Bishop))
        );
        assert_eq!(
            normal("Ng1-f3"),
            (Knight, Some(File::G), Some(Rank::First), false, Square::F3, None)
        );
        assert_eq!(
            normal("ng1-f3"),
            (Knight, Some(File::G), Some(Rank::First), false, Square::F3, None)
        );
        assert_eq!(
            normal("Ng1f3"),
            (Knight, Some(File::G), Some(Rank::First), false, Square::F3, None)
        );
        assert_eq!(
            normal("Bb5xc6"),
            (Bishop, Some(File::B), Some(Rank::Fifth), true, Square::C6, None)
        );
        assert_eq!(
            normal("bb5xc6"),
            (Bishop, Some(File::B), Some(Rank::Fifth), true, Square::C6, None)
        );
        assert_eq!(normal("bxc6"), (Pawn, Some(File::B), None, true, Square::C6, None));
        assert_eq!(normal("bc6"), (Bishop, None, None, false, Square::C6, None));
        assert_eq!(normal("rd3"), (Rook, None, None, false, Square::D3, None));
        assert_eq!(
            normal("e2-e4"),
            (Pawn, Some(File::E), Some(Rank::Second), false, Square::E4, None)
        );
        assert_eq!(normal("exd6 e.p."), (Pawn, Some(File::E), None, true, Square::D6, None));
        assert_eq!(normal("exd6e.p."), (Pawn, Some(File::E), None, true, Square::D6, None));
        assert_eq!(normal("Nf3!?"), (Knight, None, None, false, Square::F3, None));
        assert_eq!(
            normal("Qh4xe1#"),
            (Queen, Some(File::H), Some(Rank::Fourth), true, Square::E1, None)
        );
        assert_eq!("0-0".parse(), Ok(San::Castle(CastlingSide::KingSide)));
        assert_eq!("O-O-O+".parse(), Ok(San::Castle(CastlingSide::QueenSide)));
    }

    #[test]
    fn rejects_what_is_not_san() {
        for bad in [
            "", "e9", "Xe4", "xd5", "Nf", "N-f3", "e4e", "Nff", "é4", "++", "ee.p.", "O-O-O-O",
            "NNf3",
        ] {
            assert_eq!(bad.parse::<San>(), Err(ParseSanError), "{bad:?}");
        }
    }

    /// The common forms read straight from the bytes give what the general
    /// reading gives, over every text of up to four characters from SAN's
    /// alphabet and its neighbours, alone and with each trailing mark.
    #[test]
    fn common_forms_read_as_the_general_reading_does() {
        let alphabet: Vec<u8> = b"abeghi0128x=-O+#NBRQKPnbqo!( e".to_vec();
        let mut text = Vec::new();
        let (mut read, mut common) = (0, 0);
        let mut check = |text: &[u8]| {
            let Ok(s) = std::str::from_utf8(text) else { return };
            let quick = San::read_common(text);
            if let Some(san) = quick {
                assert_eq!(Ok(san), San::read_any(s), "{s:?}");
                common += 1;
            }
            assert_eq!(s.parse::<San>(), San::read_any(s), "{s:?}");
            read += 1;
        };
        for len in 0..=4u32 {
            for mut n in 0..alphabet.len().pow(len) {
                text.clear();
                for _ in 0..len {
                    text.push(alphabet[n % alphabet.len()]);
                    n /= alphabet.len();
                }
                check(&text);
                for mark in [b'+', b'#'] {
                    text.push(mark);
                    check(&text);
                    text.pop();
                }
            }
        }
        for long in ["O-O-O", "O-O-O+", "0-0-0", "O-O-O#", "O-O-O-", "o-o-o", "O-O-0", "é4", "Né4"]
        {
            check(long.as_bytes());
        }
        assert!(read > 2_000_000 && common > 4_000, "{read} texts, {common} common");
    }

    /// The candidates' loop that [`San::find`] replaced: each piece the
    /// text names asked for its move's kind.
    fn find_by_candidates(san: &San, pos: &Position) -> Result<SanMove, SanError> {
        let San::Normal { role, file, rank, to, promotion, .. } = *san else {
            return san.find(pos);
        };
        let movers = pos.movers_to(role, Bitboard::FULL, to);
        let mut named = movers;
        if let Some(f) = file {
            named &= Bitboard::from_file(f);
        }
        if let Some(r) = rank {
            named &= Bitboard::from_rank(r);
        }
        let mut found = None;
        for from in named {
            if let Some(kind) = pos.move_kind(role, from, to, promotion) {
                if found.is_some() {
                    return Err(SanError::Ambiguous);
                }
                found = Some(Move::new(from, to, kind));
            }
        }
        let mv = found.ok_or(SanError::Illegal)?;
        Ok(SanMove { mv, role, rivals: movers.without(mv.from()) })
    }

    /// Every SAN a position could be asked (each role to each square,
    /// with no, a file or a rank disambiguation, and promotions fitting or
    /// not) is found, refused or called ambiguous as the candidates' loop
    /// does, in positions of random games rich in pins, checks, en passant
    /// and promotions.
    #[test]
    fn find_agrees_with_the_candidates_loop() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "n1n3k1/PPPP4/8/8/8/8/4pppp/1K4N1 w - - 0 1",
            "4k3/8/8/1pPpPp2/8/8/8/4K3 w - d6 0 1",
            "3qk3/8/8/Q7/7Q/8/8/Q3K2Q w - - 0 1",
            "8/8/8/K2Pp2r/8/8/8/4k3 w - e6 0 2",
        ];
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let (mut found, mut ambiguous, mut positions) = (0, 0, 0);
        for fen in starts {
            let mut pos: Position = fen.parse().unwrap();
            for _ in 0..24 {
                positions += 1;
                for role in Role::ALL {
                    for to in Bitboard::FULL {
                        let files = std::iter::once(None).chain(File::ALL.map(Some));
                        for file in files {
                            let ranks: Vec<Option<Rank>> = if file.is_none() {
                                std::iter::once(None).chain(Rank::ALL.map(Some)).collect()
                            } else {
                                vec![None, Some(to.rank()), Some(Rank::Second)]
                            };
                            for rank in ranks {
                                for promotion in [
                                    None,
                                    Some(Role::Queen),
                                    Some(Role::Knight),
                                    Some(Role::King),
                                    Some(Role::Pawn),
                                ] {
                                    let san = San::Normal {
                                        role,
                                        file,
                                        rank,
                                        capture: false,
                                        to,
                                        promotion,
                                    };
                                    let (new, old) =
                                        (san.find(&pos), find_by_candidates(&san, &pos));
                                    let key = |r: Result<SanMove, SanError>| {
                                        r.map(|f| (f.mv, f.role, f.rivals))
                                    };
                                    assert_eq!(key(new), key(old), "{san} in {pos}");
                                    found += usize::from(new.is_ok());
                                    ambiguous +=
                                        usize::from(matches!(new, Err(SanError::Ambiguous)));
                                }
                            }
                        }
                    }
                }
                let Some(m) = crate::rules::dead::tests::random_move(&pos, &mut rng) else { break };
                pos = pos.play(m);
            }
        }
        assert!(
            found > 10_000 && ambiguous > 150,
            "{positions} positions: {found} found, {ambiguous} ambiguous"
        );
    }

    #[test]
    fn ambiguity_is_never_guessed() {
        let pos: Position = "4k3/8/8/8/8/8/K7/R6R w - - 0 1".parse().unwrap();
        assert_eq!("Rd1".parse::<San>().unwrap().to_move(&pos), Err(SanError::Ambiguous));
    }
}
