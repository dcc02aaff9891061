//! Forsyth–Edwards Notation: reading positions with precise errors, and
//! writing them back.
//!
//! Reading keeps syntax ([`ParseFenError`]) apart from meaning
//! ([`PositionError`]): a FEN can be well formed and still describe a
//! position no game can reach.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayString;

use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::position::{CastlingMode, Position};
use crate::board::types::{Color, File, Piece, Rank, Role, Square};

/// The standard starting position.
pub const STARTING_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A FEN that is not well formed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseFenError {
    /// Not 4 to 6 space-separated fields.
    #[error("expected 4 to 6 fields (placement, side, castling, en passant, clocks), found {0}")]
    FieldCount(usize),
    /// The placement does not have eight ranks.
    #[error("placement has {0} ranks, expected 8")]
    RankCount(usize),
    /// A rank does not describe exactly eight squares.
    #[error("rank {rank} describes {squares} squares, expected 8")]
    RankLength { rank: char, squares: usize },
    /// A character that is neither a piece letter nor a digit 1–8.
    #[error("invalid character {0:?} in placement")]
    InvalidPiece(char),
    /// Two digits in a row, as `44` for `8`.
    #[error("two digits in a row in rank {0}")]
    ConsecutiveDigits(char),
    /// The side to move is not `w` or `b`.
    #[error("side to move must be 'w' or 'b', found {0:?}")]
    Turn(String),
    /// The castling field is not `-` or castling letters.
    #[error("invalid castling field {0:?}")]
    Castling(String),
    /// The en-passant field is not `-` or a square on the third or sixth rank.
    #[error("invalid en-passant field {0:?}")]
    EnPassant(String),
    /// The half-move clock is not a non-negative integer.
    #[error("invalid half-move clock {0:?}")]
    HalfmoveClock(String),
    /// The full-move number is not a positive integer.
    #[error("invalid full-move number {0:?} (must be 1 or more)")]
    FullmoveNumber(String),
}

/// A well-formed FEN whose position is not one the rules allow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A side has no king.
    #[error("{} has no king", .0.name())]
    MissingKing(Color),
    /// A side has more than one king.
    #[error("{} has more than one king", .0.name())]
    TooManyKings(Color),
    /// A pawn stands on the first or eighth rank.
    #[error("pawn on the first or eighth rank ({0})")]
    PawnOnBackRank(Square),
    /// A side has more than 16 pieces.
    #[error("{} has more than 16 pieces", .0.name())]
    TooManyPieces(Color),
    /// A side has more than 8 pawns.
    #[error("{} has more than 8 pawns", .0.name())]
    TooManyPawns(Color),
    /// More pieces beyond the starting set than missing pawns could have
    /// promoted into.
    #[error("{} has more promoted pieces than missing pawns", .0.name())]
    TooManyPromotedPieces(Color),
    /// The side that just moved is in check.
    #[error("the side not to move is in check")]
    OppositeCheck,
    /// The checks on the side to move could not have come from one move.
    #[error("impossible check: {0}")]
    ImpossibleCheck(&'static str),
    /// The en-passant square does not follow a possible double step.
    #[error("en-passant square {0} does not follow a pawn's double step")]
    InvalidEnPassant(Square),
    /// A castling right without the king and rook on their home squares.
    #[error("castling right {0} without king and rook on their home squares")]
    InvalidCastlingRight(char),
    /// A castling right that only Chess960 allows: a rook other than the a-
    /// or h-file one, or a king off the e-file on its back rank.
    #[error("castling right {0} is a chess960 right, not supported in standard chess")]
    Chess960Castling(char),
}

/// Why a FEN was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Not well formed.
    #[error("invalid fen: {0}")]
    Syntax(#[from] ParseFenError),
    /// Well formed, but not a legal position.
    #[error("illegal position: {0}")]
    Position(#[from] PositionError),
}

impl FromStr for Position {
    type Err = FenError;

    /// Reads a FEN of standard chess, as [`Position::from_fen`] with
    /// [`CastlingMode::Standard`]. The clocks may be left out (`0 1`).
    /// Castling may be written `KQkq` or with Shredder letters for the a-
    /// and h-file rooks.
    ///
    /// # Errors
    ///
    /// [`FenError::Syntax`] for a malformed FEN, [`FenError::Position`] for a
    /// well-formed one that describes an illegal position.
    ///
    /// ```
    /// use arbiter_chess::{FenError, Position, PositionError};
    /// let err = "8/8/8/8/8/8/8/8 w - - 0 1".parse::<Position>().unwrap_err();
    /// assert_eq!(err.to_string(), "illegal position: white has no king");
    /// assert!(matches!(err, FenError::Position(PositionError::MissingKing(_))));
    /// ```
    fn from_str(fen: &str) -> Result<Position, FenError> {
        Position::from_fen(fen, CastlingMode::Standard)
    }
}

impl Position {
    /// Reads a FEN under the castling rules of `mode`. The clocks may be
    /// left out (`0 1`).
    ///
    /// In Chess960 the castling field is X-FEN (`K`/`Q` for the outermost
    /// rook on that side of the king, a file letter for an inner one) or
    /// Shredder-FEN (file letters always, `HAha`); each side of each king
    /// keeps at most one right. In standard chess only the a- and h-file
    /// rooks with the king on the e-file may castle.
    ///
    /// # Errors
    ///
    /// [`FenError::Syntax`] for a malformed FEN, [`FenError::Position`] for a
    /// well-formed one that describes an illegal position, such as a
    /// castling right with no rook on its square.
    ///
    /// ```
    /// use arbiter_chess::{CastlingMode, FenError, Position, PositionError};
    /// let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    /// let pos = Position::from_fen(fen, CastlingMode::Chess960).unwrap();
    /// assert_eq!(pos.to_string(), "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9");
    /// assert_eq!(pos.shredder_fen().as_str(), fen);
    /// let err = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w B -", CastlingMode::Chess960);
    /// assert_eq!(err, Err(FenError::Position(PositionError::InvalidCastlingRight('B'))));
    /// ```
    pub fn from_fen(fen: &str, mode: CastlingMode) -> Result<Position, FenError> {
        parse_fen(fen, mode, Material::Strict)
    }
}

/// How strictly [`parse_fen`] checks the material.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Material {
    /// Only material a game can produce.
    Strict,
    /// Also more promoted pieces than missing pawns (composed positions).
    Lenient,
}

impl Position {
    /// Reads a FEN like [`str::parse`], but accepts material that no game
    /// could produce (more promoted pieces than missing pawns, more than 16
    /// pieces a side): composed positions, which the unwinnability analysis
    /// takes and a game replay does not. Every other rule is checked. Such
    /// a position may have more legal moves than
    /// [`MAX_LEGAL_MOVES`](crate::MAX_LEGAL_MOVES): [`Position::legal_moves`]
    /// then lists the first of them ([`Position::count_legal`] counts them
    /// all); the unwinnability analysis sees every one.
    ///
    /// # Errors
    ///
    /// As [`str::parse`], without the two material errors above.
    ///
    /// ```
    /// use arbiter_chess::Position;
    /// // Three light-squared bishops beside eight pawns.
    /// let composed = "4k3/8/8/8/8/8/PPPPPPPP/1B1BKB2 w - - 0 1";
    /// assert!(composed.parse::<Position>().is_err());
    /// assert!(Position::from_fen_lenient_material(composed).is_ok());
    /// ```
    pub fn from_fen_lenient_material(fen: &str) -> Result<Position, FenError> {
        parse_fen(fen, CastlingMode::Standard, Material::Lenient)
    }
}

/// Reads a FEN under the castling rules of `mode`, checking the material as
/// `material` says.
fn parse_fen(fen: &str, mode: CastlingMode, material: Material) -> Result<Position, FenError> {
    let fields: Vec<&str> = fen.split_ascii_whitespace().take(7).collect();
    if !(4..=6).contains(&fields.len()) {
        return Err(ParseFenError::FieldCount(fen.split_ascii_whitespace().count()).into());
    }
    let (mut pos, castling) = read_fields(&fields, mode, None)?;
    validate_material(&pos, material)?;
    pos.castling = read_castling_rights(&pos, &castling)?;
    validate_en_passant(&pos)?;
    pos.finish_setup();
    validate_checks(&pos)?;
    Ok(pos)
}

/// Reads the fields of a FEN split at spaces (4 to 6 of them) into a
/// position that is not yet checked or set up, and the castling letters.
/// With `promoted`, a `~` after a piece (crazyhouse's mark of a promoted
/// piece) is read and its square noted there; without, it is an error.
pub(crate) fn read_fields(
    fields: &[&str],
    mode: CastlingMode,
    promoted: Option<&mut Bitboard>,
) -> Result<(Position, Vec<char>), ParseFenError> {
    if !(4..=6).contains(&fields.len()) {
        return Err(ParseFenError::FieldCount(fields.len()));
    }
    let mut pos = Position::empty();
    pos.mode = mode;
    parse_placement(fields[0], &mut pos, promoted)?;
    pos.turn = match fields[1] {
        "w" => Color::White,
        "b" => Color::Black,
        other => return Err(ParseFenError::Turn(other.to_owned())),
    };
    let castling = parse_castling(fields[2])?;
    pos.ep_square = match fields[3] {
        "-" => None,
        s => match s.parse::<Square>() {
            Ok(sq) if matches!(sq.rank(), Rank::Third | Rank::Sixth) => Some(sq),
            _ => return Err(ParseFenError::EnPassant(s.to_owned())),
        },
    };
    if let Some(s) = fields.get(4) {
        pos.halfmoves =
            parse_number(s).ok_or_else(|| ParseFenError::HalfmoveClock((*s).to_owned()))?;
    }
    if let Some(s) = fields.get(5) {
        pos.fullmoves = parse_number(s)
            .filter(|&n| n >= 1)
            .ok_or_else(|| ParseFenError::FullmoveNumber((*s).to_owned()))?;
    }
    Ok((pos, castling))
}

/// The castling rights that `letters` give in `pos`, under its castling mode.
pub(crate) fn read_castling_rights(
    pos: &Position,
    letters: &[char],
) -> Result<Bitboard, PositionError> {
    match pos.mode {
        CastlingMode::Standard => castling_rights(pos, letters),
        CastlingMode::Chess960 => chess960_castling_rights(pos, letters),
    }
}

/// A decimal number without sign, as FEN clocks are written.
pub(crate) fn parse_number(s: &str) -> Option<u32> {
    if s.bytes().all(|b| b.is_ascii_digit()) { s.parse().ok() } else { None }
}

fn parse_placement(
    board: &str,
    pos: &mut Position,
    mut promoted: Option<&mut Bitboard>,
) -> Result<(), ParseFenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(ParseFenError::RankCount(ranks.len()));
    }
    for (text, rank) in ranks.iter().zip(Rank::ALL.iter().rev()) {
        let mut file = 0usize;
        let mut last_was_digit = false;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                if last_was_digit {
                    return Err(ParseFenError::ConsecutiveDigits(rank.char()));
                }
                file += d as usize;
                last_was_digit = true;
            } else if let (Some(promoted), '~') = (promoted.as_deref_mut(), c) {
                // The mark follows its piece: the square just read.
                let marked = file.checked_sub(1).and_then(|f| File::new(f as u32));
                match marked.map(|f| Square::from_coords(f, *rank)) {
                    Some(sq) if !last_was_digit && pos.occupied().contains(sq) => *promoted |= sq,
                    _ => return Err(ParseFenError::InvalidPiece(c)),
                }
            } else if let Some(piece) = Piece::from_char(c) {
                if let Some(f) = File::new(file as u32) {
                    pos.put(piece, Square::from_coords(f, *rank));
                }
                file += 1;
                last_was_digit = false;
            } else {
                return Err(ParseFenError::InvalidPiece(c));
            }
            if file > 8 {
                break;
            }
        }
        if file != 8 {
            return Err(ParseFenError::RankLength { rank: rank.char(), squares: file });
        }
    }
    Ok(())
}

/// Castling letters as written: `K`, `Q`, `k`, `q` or a Shredder file letter.
fn parse_castling(field: &str) -> Result<Vec<char>, ParseFenError> {
    if field == "-" {
        return Ok(Vec::new());
    }
    let mut letters: Vec<char> = Vec::with_capacity(4);
    for c in field.chars() {
        let valid = matches!(c, 'K' | 'Q' | 'k' | 'q' | 'A'..='H' | 'a'..='h');
        if !valid || letters.contains(&c) || letters.len() >= 4 {
            return Err(ParseFenError::Castling(field.to_owned()));
        }
        letters.push(c);
    }
    Ok(letters)
}

/// Turns castling letters into rook squares, checking that king and rook
/// stand on their home squares.
fn castling_rights(pos: &Position, letters: &[char]) -> Result<Bitboard, PositionError> {
    // Chess960 first, whatever the order of the letters: a rook other than
    // the a- or h-file one (by Shredder letter, or as the outermost rook that
    // X-FEN's K or Q names), or a king on its back rank off the e-file.
    for &c in letters {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let back = Bitboard::from_rank(color.back_rank());
        let king = (pos.pieces(Piece { color, role: Role::King }) & back).first();
        let rooks = pos.pieces(Piece { color, role: Role::Rook }) & back;
        let outermost = match (c.to_ascii_lowercase(), king) {
            ('k', Some(k)) => rooks.into_iter().filter(|&r| r > k).last(),
            ('q', Some(k)) => rooks.into_iter().find(|&r| r < k),
            _ => None,
        };
        let chess960 = !matches!(c.to_ascii_lowercase(), 'k' | 'q' | 'a' | 'h')
            || king.is_some_and(|k| k.file() != File::E)
            || outermost.is_some_and(|r| !matches!(r.file(), File::A | File::H));
        if chess960 {
            return Err(PositionError::Chess960Castling(c));
        }
    }
    let mut rooks = Bitboard::EMPTY;
    for &c in letters {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let file = match c.to_ascii_lowercase() {
            'k' | 'h' => File::H,
            _ => File::A,
        };
        let rank = color.back_rank();
        let rook = Square::from_coords(file, rank);
        let king = Square::from_coords(File::E, rank);
        let home = pos.pieces(Piece { color, role: Role::King }).contains(king)
            && pos.pieces(Piece { color, role: Role::Rook }).contains(rook);
        if !home || rooks.contains(rook) {
            return Err(PositionError::InvalidCastlingRight(c));
        }
        rooks |= rook;
    }
    Ok(rooks)
}

/// Turns X-FEN or Shredder-FEN castling letters into rook squares: `K`
/// (`Q`) names the outermost rook of that colour on the back rank on the
/// h-side (a-side) of the king, a file letter the rook on that file. Each
/// right needs its king on the back rank and a rook of its colour on the
/// square, and each side of a king has at most one right.
fn chess960_castling_rights(pos: &Position, letters: &[char]) -> Result<Bitboard, PositionError> {
    let mut rooks = Bitboard::EMPTY;
    for &c in letters {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let invalid = PositionError::InvalidCastlingRight(c);
        let back = Bitboard::from_rank(color.back_rank());
        let king = (pos.pieces(Piece { color, role: Role::King }) & back)
            .first()
            .ok_or(invalid.clone())?;
        let own_rooks = pos.pieces(Piece { color, role: Role::Rook }) & back;
        let rook = match c.to_ascii_lowercase() {
            'k' => own_rooks.into_iter().filter(|&r| r > king).last(),
            'q' => own_rooks.into_iter().find(|&r| r < king),
            letter => File::from_char(letter)
                .map(|file| Square::from_coords(file, color.back_rank()))
                .filter(|&sq| own_rooks.contains(sq)),
        }
        .ok_or(invalid.clone())?;
        let same_side = (rooks & back).into_iter().any(|r| (r > king) == (rook > king));
        if same_side {
            return Err(invalid);
        }
        rooks |= rook;
    }
    Ok(rooks)
}

pub(crate) fn validate_material(pos: &Position, material: Material) -> Result<(), PositionError> {
    for color in Color::ALL {
        validate_king(pos, color)?;
        validate_army(pos, color, material)?;
    }
    if let Some(sq) = (pos.by_role(Role::Pawn) & Bitboard::BACK_RANKS).first() {
        return Err(PositionError::PawnOnBackRank(sq));
    }
    Ok(())
}

/// `color` has exactly one king.
pub(crate) fn validate_king(pos: &Position, color: Color) -> Result<(), PositionError> {
    match pos.pieces(Piece { color, role: Role::King }).count() {
        0 => Err(PositionError::MissingKing(color)),
        1 => Ok(()),
        _ => Err(PositionError::TooManyKings(color)),
    }
}

/// `color`'s pieces are what a game can leave it: at most 16 and 8 pawns,
/// and no more promoted pieces than missing pawns (the last two under
/// `material`'s strictness).
pub(crate) fn validate_army(
    pos: &Position,
    color: Color,
    material: Material,
) -> Result<(), PositionError> {
    let count = |role| pos.pieces(Piece { color, role });
    if pos.by_color(color).count() > 16 && material == Material::Strict {
        return Err(PositionError::TooManyPieces(color));
    }
    let pawns = count(Role::Pawn).count();
    if pawns > 8 {
        return Err(PositionError::TooManyPawns(color));
    }
    let bishops = count(Role::Bishop);
    let excess = |bb: Bitboard, start: u32| bb.count().saturating_sub(start);
    let promoted = excess(count(Role::Queen), 1)
        + excess(count(Role::Rook), 2)
        + excess(count(Role::Knight), 2)
        + excess(bishops & Bitboard::LIGHT_SQUARES, 1)
        + excess(bishops & Bitboard::DARK_SQUARES, 1);
    if promoted > 8 - pawns && material == Material::Strict {
        return Err(PositionError::TooManyPromotedPieces(color));
    }
    Ok(())
}

/// The en-passant square must be empty, with the double-stepped pawn in
/// front of it and its starting square empty behind it.
pub(crate) fn validate_en_passant(pos: &Position) -> Result<(), PositionError> {
    let Some(ep) = pos.ep_square else {
        return Ok(());
    };
    let us = pos.turn;
    let pushed = Square::from_coords(ep.file(), Rank::Fifth.relative_to(us));
    let origin = Square::from_coords(ep.file(), Rank::Seventh.relative_to(us));
    let valid = ep.rank() == Rank::Sixth.relative_to(us)
        && pos.pieces(Piece { color: !us, role: Role::Pawn }).contains(pushed)
        && !pos.occupied().contains(ep)
        && !pos.occupied().contains(origin);
    if valid { Ok(()) } else { Err(PositionError::InvalidEnPassant(ep)) }
}

/// Checks that one last move could have produced: the mover's king is not
/// in check, at most two checkers, a double check includes the slider a
/// move uncovered and not two pieces on one line, and after a double step
/// the check comes from that pawn or from the line it opened.
pub(crate) fn validate_checks(pos: &Position) -> Result<(), PositionError> {
    let us = pos.turn;
    let them = !us;
    if pos.attackers_to(pos.king_of(them), us, pos.occupied()).any() {
        return Err(PositionError::OppositeCheck);
    }
    validate_checkers(pos)
}

/// The checks on the side to move could have come from one move (see
/// [`validate_checks`], which adds the side not to move).
pub(crate) fn validate_checkers(pos: &Position) -> Result<(), PositionError> {
    let us = pos.turn;
    let checkers = pos.checkers();
    let Some(first) = checkers.first() else {
        return Ok(());
    };
    let king = pos.king_of(us);
    let sliders = pos.by_role(Role::Bishop) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    if let Some(ep) = pos.ep_square {
        let pushed = Square::from_coords(ep.file(), Rank::Fifth.relative_to(us));
        let origin = Square::from_coords(ep.file(), Rank::Seventh.relative_to(us));
        let by_pawn = first == pushed;
        let uncovered = sliders.contains(first) && attacks::between(king, first).contains(origin);
        if checkers.more_than_one() || !(by_pawn || uncovered) {
            return Err(PositionError::ImpossibleCheck(
                "the check does not follow the double step",
            ));
        }
        return Ok(());
    }
    if checkers.count() > 2 {
        return Err(PositionError::ImpossibleCheck("more than two checkers"));
    }
    if let Some(second) = checkers.last().filter(|&sq| sq != first) {
        if attacks::aligned(first, second, king) {
            return Err(PositionError::ImpossibleCheck("two checkers on one line"));
        }
        if (checkers & sliders).is_empty() {
            return Err(PositionError::ImpossibleCheck(
                "a double check needs a slider uncovered by the move",
            ));
        }
    }
    Ok(())
}

/// The longest FEN of a chess position: 64 pieces and 7 slashes, side,
/// `KQkq`, an en-passant square and two clocks of up to 10 digits, with the
/// 5 spaces between the fields.
const MAX_CHESS_FEN_LEN: usize = 71 + 1 + 4 + 2 + 10 + 10 + 5;

/// The longest FEN of any rule set: a chess FEN, crazyhouse's `~` after
/// each of at most 16 promoted pieces and its pocket of at most 30 pieces
/// in brackets (a game has 32 pieces, two of them kings, and the board's
/// 71 characters need all 32 on it), which is longer than three-check's
/// ` 3+3`.
pub const MAX_FEN_LEN: usize = MAX_CHESS_FEN_LEN + 16 + 32;

/// A FEN as [`Position::fen`] (or a variant position's `fen`) writes it,
/// without a heap allocation.
pub type Fen = ArrayString<MAX_FEN_LEN>;

impl Position {
    /// The FEN, written without allocating: castling as `KQkq`, the
    /// en-passant square as recorded. Answers carry a FEN per position they
    /// return, so this writes bytes rather than go through `fmt`.
    ///
    /// ```
    /// use arbiter_chess::{Position, STARTING_FEN};
    /// assert_eq!(Position::default().fen().as_str(), STARTING_FEN);
    /// ```
    pub fn fen(&self) -> Fen {
        self.write_fen(false)
    }

    /// The FEN with Shredder-FEN castling: the file letter of every
    /// castling rook (`HAha`), upper case for white, the h-side first.
    ///
    /// ```
    /// use arbiter_chess::Position;
    /// assert!(Position::default().shredder_fen().ends_with(" w HAha - 0 1"));
    /// ```
    pub fn shredder_fen(&self) -> Fen {
        self.write_fen(true)
    }

    /// The castling letter of the right with its rook on `rook`: its file
    /// (Shredder-FEN, or X-FEN for a rook with another one farther out on
    /// its side of the king), else `K` or `Q`.
    fn castling_char(&self, rook: Square, shredder: bool) -> u8 {
        let color = if rook.rank() == Rank::First { Color::White } else { Color::Black };
        let king = self.king_of(color);
        let rooks =
            self.pieces(Piece { color, role: Role::Rook }) & Bitboard::from_rank(color.back_rank());
        let king_side = rook > king;
        let outermost =
            if king_side { rooks.last() == Some(rook) } else { rooks.first() == Some(rook) };
        let c = if shredder || !outermost {
            rook.file().char() as u8
        } else if king_side {
            b'k'
        } else {
            b'q'
        };
        color.fold(c.to_ascii_uppercase(), c)
    }

    fn write_fen(&self, shredder: bool) -> Fen {
        let mut out = [0u8; MAX_FEN_LEN];
        let mut len = 0;
        let mut put = |byte: u8| {
            out[len] = byte;
            len += 1;
        };
        // Each piece's letter on its square, set from the twelve pieces'
        // bitboards; then each rank from its occupied squares, the gaps
        // between them as digits: a FEN is written a ply when FENs are
        // asked for, and asking each of 64 squares for its piece cost
        // several times the rest of it.
        let mut letters = [0u8; 64];
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                for sq in self.pieces(piece) {
                    letters[sq.index()] = piece.char() as u8;
                }
            }
        }
        let occupied = self.occupied().0;
        for rank in (0..8).rev() {
            let mut row = (occupied >> (8 * rank)) as u8;
            let mut file = 0;
            while row != 0 {
                let next = row.trailing_zeros();
                if next > file {
                    put(b'0' + (next - file) as u8);
                }
                put(letters[8 * rank + next as usize]);
                file = next + 1;
                row &= row - 1;
            }
            if file < 8 {
                put(b'0' + (8 - file) as u8);
            }
            put(if rank == 0 { b' ' } else { b'/' });
        }
        put(self.turn.fold(b'w', b'b'));
        put(b' ');
        if self.castling.is_empty() {
            put(b'-');
        }
        for color in Color::ALL {
            // The h-side right first: the higher file.
            let rights = self.castling & Bitboard::from_rank(color.back_rank());
            let queen_side = rights.first().filter(|_| rights.more_than_one());
            for rook in [rights.last(), queen_side].into_iter().flatten() {
                put(self.castling_char(rook, shredder));
            }
        }
        put(b' ');
        match self.ep_square {
            Some(ep) => {
                put(ep.file().char() as u8);
                put(ep.rank().char() as u8);
            }
            None => put(b'-'),
        }
        for clock in [self.halfmoves, self.fullmoves] {
            put(b' ');
            let mut digits = [0u8; 10];
            let mut n = digits.len();
            let mut rest = clock;
            loop {
                n -= 1;
                digits[n] = b'0' + (rest % 10) as u8;
                rest /= 10;
                if rest == 0 {
                    break;
                }
            }
            digits[n..].iter().for_each(|&d| put(d));
        }
        let text = std::str::from_utf8(&out[..len]).expect("a FEN is ASCII");
        ArrayString::from(text).expect("a FEN fits in MAX_FEN_LEN")
    }
}

impl fmt::Display for Position {
    /// Writes the FEN, as [`Position::fen`].
    ///
    /// ```
    /// use arbiter_chess::{Position, STARTING_FEN};
    /// assert_eq!(Position::default().to_string(), STARTING_FEN);
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(fen: &str) -> FenError {
        fen.parse::<Position>().unwrap_err()
    }

    #[test]
    fn the_longest_fen_fits() {
        // Not a legal position: only the writer's bound is at stake.
        let mut pos = Position::empty();
        let knight = Piece { color: Color::White, role: Role::Knight };
        for sq in (0..64).filter(|i| (i / 8 + i) % 2 == 0).filter_map(Square::new) {
            pos.put(knight, sq);
        }
        pos.castling = [Square::A1, Square::H1, Square::A8, Square::H8].into_iter().collect();
        pos.ep_square = Some(Square::E3);
        (pos.halfmoves, pos.fullmoves) = (u32::MAX, u32::MAX);
        let fen = pos.fen();
        assert_eq!(fen.len(), MAX_CHESS_FEN_LEN);
        assert!(fen.starts_with("1N1N1N1N/N1N1N1N1/"), "{fen}");
        // Without kings and rooks the rights are written as file letters.
        assert!(fen.ends_with(" w HAha e3 4294967295 4294967295"), "{fen}");
        assert_eq!(pos.shredder_fen().len(), MAX_CHESS_FEN_LEN);
        assert_eq!(pos.to_string(), fen.as_str());
    }

    #[test]
    fn round_trips() {
        for fen in [
            STARTING_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 12 40",
            "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
        ] {
            assert_eq!(fen.parse::<Position>().unwrap().to_string(), fen);
        }
    }

    #[test]
    fn clocks_default_and_shredder_letters_read_as_standard() {
        let pos: Position = "r3k2r/8/8/8/8/8/8/R3K2R b HAha -".parse().unwrap();
        assert_eq!(pos.to_string(), "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
        let pos: Position = "4k3/8/8/8/8/8/8/4K3 w - - 7".parse().unwrap();
        assert_eq!(pos.to_string(), "4k3/8/8/8/8/8/8/4K3 w - - 7 1");
    }

    #[test]
    fn syntax_errors_name_the_defect() {
        use ParseFenError as E;
        let cases: [(&str, ParseFenError); 10] = [
            ("8/8/8 w", E::FieldCount(2)),
            ("8/8/8/8/8/8/8 w - -", E::RankCount(7)),
            ("4k3/8/8/8/8/8/8/4K2 w - -", E::RankLength { rank: '1', squares: 7 }),
            ("4k3/8/8/8/8/8/8/4K4 w - -", E::RankLength { rank: '1', squares: 9 }),
            ("4k3/8/8/8/8/8/8/4X3 w - -", E::InvalidPiece('X')),
            ("4k3/8/8/8/8/8/8/44 w - -", E::ConsecutiveDigits('1')),
            ("4k3/8/8/8/8/8/8/4K3 x - -", E::Turn("x".into())),
            ("4k3/8/8/8/8/8/8/4K3 w KK -", E::Castling("KK".into())),
            ("4k3/8/8/8/8/8/8/4K3 w - e4", E::EnPassant("e4".into())),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", E::FullmoveNumber("0".into())),
        ];
        for (fen, expected) in cases {
            assert_eq!(err(fen), FenError::Syntax(expected), "{fen}");
        }
        assert_eq!(
            err("4k3/8/8/8/8/8/8/4K3 w - - -1 1"),
            FenError::Syntax(E::HalfmoveClock("-1".into()))
        );
    }

    #[test]
    fn illegal_positions_name_the_defect() {
        use PositionError as E;
        let cases: Vec<(&str, PositionError)> = vec![
            ("8/8/8/8/8/8/8/4K3 w - -", E::MissingKing(Color::Black)),
            ("4k3/8/8/8/8/8/8/3KK3 w - -", E::TooManyKings(Color::White)),
            ("4k2P/8/8/8/8/8/8/4K3 w - -", E::PawnOnBackRank(Square::H8)),
            ("4k3/8/8/8/8/PPPPPPPP/P7/4K3 w - -", E::TooManyPawns(Color::White)),
            ("4k3/8/8/8/QQQQQQQQ/PPPPPPPP/QQ6/4K3 w - -", E::TooManyPieces(Color::White)),
            ("4k3/8/8/8/8/QQ6/PPPPPPPP/4K3 w - -", E::TooManyPromotedPieces(Color::White)),
            ("4k3/8/8/8/8/8/8/4R1K1 w - -", E::OppositeCheck),
            ("4k3/8/8/8/8/8/8/4K2R w Q -", E::InvalidCastlingRight('Q')),
            ("4k3/8/8/8/8/8/8/R3K1R1 w G -", E::Chess960Castling('G')),
            ("4k3/8/8/8/4P3/8/4K3/8 b - e3", E::InvalidEnPassant(Square::E3)),
            ("4k3/8/8/8/4P3/8/8/4K3 w - e3", E::InvalidEnPassant(Square::E3)),
            ("4k3/8/8/8/8/8/8/4K3 b - e3", E::InvalidEnPassant(Square::E3)),
            ("4k3/8/8/8/8/8/8/r3K2r w - -", E::ImpossibleCheck("two checkers on one line")),
        ];
        for (fen, expected) in cases {
            assert_eq!(err(fen), FenError::Position(expected), "{fen}");
        }
    }

    #[test]
    fn impossible_checks() {
        // Three checkers.
        assert!(matches!(
            err("4k3/8/8/8/8/3n1n2/8/r3K3 w - - 0 1"),
            FenError::Position(PositionError::ImpossibleCheck(_))
        ));
        // Two knights.
        assert!(matches!(
            err("4k3/8/8/8/8/3n1n2/8/4K3 w - - 0 1"),
            FenError::Position(PositionError::ImpossibleCheck(_))
        ));
        // A check by a piece other than the pawn that just double-stepped.
        assert!(matches!(
            err("4k3/8/8/3p4/8/8/8/r3K3 w - d6 0 1"),
            FenError::Position(PositionError::ImpossibleCheck(_))
        ));
        // Knight check uncovering a bishop: a legal double check.
        assert!("4k3/8/8/b7/8/3n4/8/4K3 w - - 0 1".parse::<Position>().is_ok());
    }
}
