//! Variant FEN: crazyhouse's pocket (`[QNp]` after the placement, or as a
//! ninth rank) and `~` after promoted pieces, three-check's counters
//! (remaining checks `3+3` before the clocks, or lichess's checks given
//! `+0+0` at the end), and each variant's own idea of a legal position.

use std::fmt::{self, Write};

use crate::board::bitboard::Bitboard;
use crate::board::fen::{
    Fen, FenError, Material, ParseFenError, PositionError, read_castling_rights, read_fields,
    validate_army, validate_checkers, validate_checks, validate_en_passant, validate_king,
    validate_material,
};
use crate::board::position::{CastlingMode, Position};
use crate::board::types::{Color, File, Piece, Rank, Role, Square};
use crate::rules::variant::Variant;
use crate::rules::variant::position::{Pocket, VariantPosition};

/// Why a variant FEN was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VariantFenError {
    /// What standard chess would reject too (syntax, kings, checks, ...).
    #[error(transparent)]
    Fen(#[from] FenError),
    /// The crazyhouse pocket is not piece letters in brackets.
    #[error("invalid fen: invalid pocket {0:?} (expected piece letters, e.g. [QNp])")]
    Pocket(String),
    /// A pocket holds a king.
    #[error("illegal position: a pocket holds a king")]
    KingInPocket,
    /// More pieces of a kind, on the board and in hand, than the two sets
    /// of a crazyhouse game hold.
    #[error("illegal position: more {} on the board and in the pockets than a game has", .0.name())]
    CrazyhouseMaterial(Role),
    /// The three-check counters are malformed or out of range.
    #[error(
        "invalid fen: three-check counters {0:?} (expected remaining checks as 3+3 or checks \
         given as +0+0, each 0 to 3)"
    )]
    Checks(String),
    /// Both sides have given three checks.
    #[error("illegal position: both sides have given three checks")]
    BothChecksGiven,
    /// Castling rights in a variant without castling.
    #[error("illegal position: {0} has no castling, but the fen gives castling rights")]
    Castling(Variant),
    /// Horde: White's army has a king.
    #[error("illegal position: a king in horde's white army")]
    HordeWhiteKing,
    /// Horde: White's army has more than 36 pieces.
    #[error("illegal position: horde's white army has more than 36 pieces")]
    HordeTooManyPieces,
    /// Racing kings: a pawn on the board.
    #[error("illegal position: racing kings has no pawns ({0})")]
    RacingKingsPawn(Square),
    /// Racing kings: more pieces of a kind than the start has.
    #[error("illegal position: {} has more {}s than racing kings starts with", .0.name(), .1.name())]
    RacingKingsMaterial(Color, Role),
    /// Racing kings: a king in check.
    #[error("illegal position: {} is in check, and racing kings has no checks", .0.name())]
    RacingKingsCheck(Color),
    /// Racing kings: both kings on the eighth rank, black to move (the race
    /// was over when Black arrived).
    #[error("illegal position: both kings on the eighth rank with black to move")]
    RacingKingsBothHome,
    /// No pieces at all.
    #[error("illegal position: the board is empty")]
    EmptyBoard,
}

impl From<ParseFenError> for VariantFenError {
    fn from(err: ParseFenError) -> VariantFenError {
        VariantFenError::Fen(err.into())
    }
}

impl From<PositionError> for VariantFenError {
    fn from(err: PositionError) -> VariantFenError {
        VariantFenError::Fen(err.into())
    }
}

impl VariantPosition {
    /// Reads a FEN of `variant` with `mode`'s castling rules (X-FEN and
    /// Shredder-FEN in Chess960 mode, as atomic's Chess960 positions need).
    ///
    /// # Errors
    ///
    /// [`VariantFenError`] naming the defect: what standard chess rejects
    /// (as [`VariantFenError::Fen`]), adapted to the variant (no kings in
    /// antichess, none for horde's White, no check in racing kings), and
    /// the variant's own fields.
    ///
    /// ```
    /// use arbiter_chess::{CastlingMode, Variant, VariantFenError, VariantPosition};
    /// let read = |fen| VariantPosition::from_fen(fen, Variant::ThreeCheck, CastlingMode::Standard);
    /// // Remaining checks, or lichess's checks given: the same position.
    /// let a = read("4k3/8/8/8/8/8/8/4K2R w K - 2+3 0 1").unwrap();
    /// let b = read("4k3/8/8/8/8/8/8/4K2R w K - 0 1 +1+0").unwrap();
    /// assert_eq!(a, b);
    /// assert_eq!(a.fen().as_str(), "4k3/8/8/8/8/8/8/4K2R w K - 2+3 0 1");
    /// assert!(matches!(read("4k3/8/8/8/8/8/8/4K3 w - - 4+3 0 1"), Err(VariantFenError::Checks(_))));
    /// ```
    pub fn from_fen(
        fen: &str,
        variant: Variant,
        mode: CastlingMode,
    ) -> Result<VariantPosition, VariantFenError> {
        let mut fields: Vec<&str> = fen.split_ascii_whitespace().take(8).collect();
        let mut remaining_checks = [3, 3];
        if variant == Variant::ThreeCheck {
            remaining_checks = take_checks(&mut fields)?;
        }
        let mut pockets = [Pocket::default(); 2];
        if variant == Variant::Crazyhouse
            && let Some(placement) = fields.first_mut()
        {
            let (board, pocket) = split_pocket(placement)?;
            *placement = board;
            pockets = read_pockets(pocket)?;
        }
        let mut promoted = Bitboard::EMPTY;
        let marks = (variant == Variant::Crazyhouse).then_some(&mut promoted);
        let (mut board, letters) = read_fields(&fields, mode, marks)?;
        // Pawns and kings were never promoted: their marks mean nothing.
        promoted &= board.occupied() - board.by_role(Role::Pawn) - board.by_role(Role::King);
        validate_variant_material(&board, variant, &pockets, promoted)?;
        if matches!(variant, Variant::Antichess | Variant::RacingKings) && !letters.is_empty() {
            return Err(VariantFenError::Castling(variant));
        }
        board.castling = read_castling_rights(&board, &letters)?;
        validate_en_passant(&board)?;
        board.finish_setup();
        let pos = VariantPosition { variant, board, promoted, pockets, remaining_checks };
        pos.validate_checks()?;
        Ok(pos)
    }

    /// What the side not to move and the checks on the side to move may be
    /// in each variant.
    fn validate_checks(&self) -> Result<(), VariantFenError> {
        let board = &self.board;
        let us = board.turn;
        match self.variant {
            Variant::Crazyhouse | Variant::KingOfTheHill | Variant::ThreeCheck => {
                validate_checks(board)?;
            }
            Variant::Atomic => {
                // Explosions can check from anywhere at once: only the side
                // not to move being in check is impossible.
                if self.atomic_attackers_of_king(!us).any() {
                    return Err(PositionError::OppositeCheck.into());
                }
            }
            Variant::Horde => match self.king_of(!us) {
                Some(king) if board.attackers_to(king, us, board.occupied()).any() => {
                    return Err(PositionError::OppositeCheck.into());
                }
                Some(_) => {}
                None => validate_checkers(board)?,
            },
            Variant::RacingKings => {
                for color in Color::ALL {
                    if let Some(king) = self.king_of(color)
                        && board.attackers_to(king, !color, board.occupied()).any()
                    {
                        return Err(VariantFenError::RacingKingsCheck(color));
                    }
                }
                let home = board.by_role(Role::King) & Bitboard::from_rank(Rank::Eighth);
                if us == Color::Black && home.count() == 2 {
                    return Err(VariantFenError::RacingKingsBothHome);
                }
            }
            Variant::Antichess => {}
        }
        Ok(())
    }

    /// The FEN as python-chess writes it: crazyhouse's pocket in brackets
    /// (white's pieces first, queen to pawn) with `~` after promoted pieces,
    /// three-check's remaining checks before the clocks.
    ///
    /// ```
    /// use arbiter_chess::{Variant, VariantPosition};
    /// assert_eq!(VariantPosition::new(Variant::Crazyhouse).fen().as_str(),
    ///     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1");
    /// ```
    pub fn fen(&self) -> Fen {
        let standard = self.board.fen();
        let (placement, rest) = standard.split_once(' ').unwrap_or((&standard, ""));
        // Within `MAX_FEN_LEN`, which counts a crazyhouse pocket and marks.
        let mut out = Fen::new();
        if self.variant == Variant::Crazyhouse {
            self.write_marked_placement(&mut out);
            out.push('[');
            for color in Color::ALL {
                for role in Pocket::ROLES {
                    let piece = Piece { color, role }.char();
                    (0..self.pockets[color.index()].count(role)).for_each(|_| out.push(piece));
                }
            }
            out.push(']');
        } else {
            out.push_str(placement);
        }
        // side, castling, en passant, then the clocks.
        for (i, field) in rest.split(' ').enumerate() {
            if i == 3 && self.variant == Variant::ThreeCheck {
                let [white, black] = self.remaining_checks;
                // Writing to a `Fen` within its capacity cannot fail.
                let _ = write!(out, " {white}+{black}");
            }
            out.push(' ');
            out.push_str(field);
        }
        out
    }

    /// The placement with a `~` after each promoted piece.
    fn write_marked_placement(&self, out: &mut Fen) {
        for rank in Rank::ALL.into_iter().rev() {
            let mut empty = 0;
            for file in File::ALL {
                let sq = Square::from_coords(file, rank);
                let Some(piece) = self.board.piece_at(sq) else {
                    empty += 1;
                    continue;
                };
                if empty > 0 {
                    out.push(char::from(b'0' + empty));
                    empty = 0;
                }
                out.push(piece.char());
                if self.promoted.contains(sq) {
                    out.push('~');
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank != Rank::First {
                out.push('/');
            }
        }
    }
}

impl fmt::Display for VariantPosition {
    /// Writes the FEN, as [`VariantPosition::fen`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

/// Takes three-check's counters out of the fields: remaining checks `W+B`
/// as the fifth field, or checks given `+W+B` as the last; 3+3 without them.
fn take_checks(fields: &mut Vec<&str>) -> Result<[u8; 2], VariantFenError> {
    let Some(i) = fields.iter().skip(4).position(|f| f.contains('+')).map(|i| i + 4) else {
        // No counters: none given yet, as python-chess and shakmaty read it.
        return Ok([3, 3]);
    };
    let text = fields.remove(i);
    let bad = || VariantFenError::Checks(text.to_owned());
    let (given, counts) = match text.strip_prefix('+') {
        Some(counts) if i == fields.len() => (true, counts),
        Some(_) => return Err(bad()),
        None if i == 4 => (false, text),
        None => return Err(bad()),
    };
    let (white, black) = counts.split_once('+').ok_or_else(bad)?;
    let read = |s: &str| match s.as_bytes() {
        [d @ b'0'..=b'3'] => Some(d - b'0'),
        _ => None,
    };
    let (white, black) = (read(white).ok_or_else(bad)?, read(black).ok_or_else(bad)?);
    let remaining = if given { [3 - white, 3 - black] } else { [white, black] };
    if remaining == [0, 0] {
        return Err(VariantFenError::BothChecksGiven);
    }
    Ok(remaining)
}

/// Splits crazyhouse's placement field into the board and the pocket
/// (empty if there is none): `board[pocket]` or `board/pocket`.
fn split_pocket(placement: &str) -> Result<(&str, &str), VariantFenError> {
    if let Some((board, rest)) = placement.split_once('[') {
        let pocket =
            rest.strip_suffix(']').ok_or_else(|| VariantFenError::Pocket(rest.to_owned()))?;
        return Ok((board, pocket));
    }
    match placement.rmatch_indices('/').nth(7) {
        Some(_) => {
            let (board, pocket) = placement.rsplit_once('/').unwrap_or((placement, ""));
            Ok((board, pocket))
        }
        None => Ok((placement, "")),
    }
}

/// Reads pocket letters: upper case for White's, lower case for Black's.
fn read_pockets(text: &str) -> Result<[Pocket; 2], VariantFenError> {
    let mut pockets = [Pocket::default(); 2];
    for c in text.chars() {
        match Piece::from_char(c) {
            Some(Piece { role: Role::King, .. }) => return Err(VariantFenError::KingInPocket),
            Some(piece) => pockets[piece.color.index()].add(piece.role),
            None => return Err(VariantFenError::Pocket(text.to_owned())),
        }
    }
    Ok(pockets)
}

/// The material each variant allows.
fn validate_variant_material(
    board: &Position,
    variant: Variant,
    pockets: &[Pocket; 2],
    promoted: Bitboard,
) -> Result<(), VariantFenError> {
    let back_rank_pawn = |pawns: Bitboard| -> Result<(), VariantFenError> {
        match pawns.first() {
            Some(sq) => Err(PositionError::PawnOnBackRank(sq).into()),
            None => Ok(()),
        }
    };
    let pawns = board.by_role(Role::Pawn);
    match variant {
        Variant::KingOfTheHill | Variant::ThreeCheck => validate_material(board, Material::Strict)?,
        Variant::Crazyhouse => {
            for color in Color::ALL {
                validate_king(board, color)?;
            }
            back_rank_pawn(pawns & Bitboard::BACK_RANKS)?;
            // Both sets together: 16 pawns (promoted pieces were pawns), 4
            // knights, bishops and rooks, 2 queens.
            for (role, most) in [
                (Role::Pawn, 16),
                (Role::Knight, 4),
                (Role::Bishop, 4),
                (Role::Rook, 4),
                (Role::Queen, 2),
            ] {
                let on_board = if role == Role::Pawn {
                    (board.by_role(role) | promoted).count()
                } else {
                    (board.by_role(role) - promoted).count()
                };
                let in_hand: u32 = pockets.iter().map(|p| u32::from(p.count(role))).sum();
                if on_board + in_hand > most {
                    return Err(VariantFenError::CrazyhouseMaterial(role));
                }
            }
        }
        Variant::Atomic => {
            // The side to move may have lost its king in the last explosion.
            let us = board.turn;
            validate_king(board, !us)?;
            if board.pieces(Piece { color: us, role: Role::King }).more_than_one() {
                return Err(PositionError::TooManyKings(us).into());
            }
            for color in Color::ALL {
                validate_army(board, color, Material::Strict)?;
            }
            back_rank_pawn(pawns & Bitboard::BACK_RANKS)?;
        }
        Variant::Antichess => {
            if board.occupied().is_empty() {
                return Err(VariantFenError::EmptyBoard);
            }
            for color in Color::ALL {
                validate_army(board, color, Material::Strict)?;
            }
            back_rank_pawn(pawns & Bitboard::BACK_RANKS)?;
        }
        Variant::Horde => {
            if board.pieces(Piece { color: Color::White, role: Role::King }).any() {
                return Err(VariantFenError::HordeWhiteKing);
            }
            if board.by_color(Color::White).count() > 36 {
                return Err(VariantFenError::HordeTooManyPieces);
            }
            validate_king(board, Color::Black)?;
            validate_army(board, Color::Black, Material::Strict)?;
            // White's pawns may stand on the first rank.
            let eighth = Bitboard::from_rank(Rank::Eighth);
            back_rank_pawn(
                pawns & (eighth | (board.by_color(Color::Black) & Bitboard::BACK_RANKS)),
            )?;
        }
        Variant::RacingKings => {
            if let Some(sq) = pawns.first() {
                return Err(VariantFenError::RacingKingsPawn(sq));
            }
            for color in Color::ALL {
                validate_king(board, color)?;
                for (role, most) in
                    [(Role::Knight, 2), (Role::Bishop, 2), (Role::Rook, 2), (Role::Queen, 1)]
                {
                    if board.pieces(Piece { color, role }).count() > most {
                        return Err(VariantFenError::RacingKingsMaterial(color, role));
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(fen: &str, variant: Variant) -> Result<VariantPosition, VariantFenError> {
        VariantPosition::from_fen(fen, variant, CastlingMode::Standard)
    }

    #[test]
    fn start_positions_read_back() {
        for variant in Variant::ALL {
            let pos = VariantPosition::new(variant);
            assert_eq!(pos.fen().as_str(), variant.starting_fen(), "{variant}");
        }
    }

    #[test]
    fn crazyhouse_pockets_and_promoted_marks() {
        let pos = read("4k3/1Q~6/8/8/4b3/8/Kpp5/8/ b - - 0 1", Variant::Crazyhouse).unwrap();
        assert_eq!(pos.promoted(), Square::B7.into());
        assert_eq!(pos.fen().as_str(), "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1");
        let pos = read("4k3/8/8/8/8/8/8/4K3[QRpn] w - - 0 1", Variant::Crazyhouse).unwrap();
        assert_eq!(pos.pocket(Color::White).count(Role::Queen), 1);
        assert_eq!(pos.pocket(Color::Black).count(Role::Knight), 1);
        assert_eq!(pos.fen().as_str(), "4k3/8/8/8/8/8/8/4K3[QRnp] w - - 0 1");
        assert_eq!(
            read("4k3/8/8/8/8/8/8/4K3[Kq] w - - 0 1", Variant::Crazyhouse),
            Err(VariantFenError::KingInPocket)
        );
        assert!(matches!(
            read("4k3/8/8/8/8/8/8/4K3[Q1] w - - 0 1", Variant::Crazyhouse),
            Err(VariantFenError::Pocket(_))
        ));
        assert!(matches!(
            read("4k3/8/8/8/8/8/8/4K3[QQq] w - - 0 1", Variant::Crazyhouse),
            Err(VariantFenError::CrazyhouseMaterial(Role::Queen))
        ));
        // A mark only follows a piece, and only in crazyhouse.
        assert!(read("4k3/8/8/8/8/8/8/4K2~[] w - - 0 1", Variant::Crazyhouse).is_err());
        assert!(read("4k3/1Q~6/8/8/8/8/8/4K3 w - - 0 1", Variant::Atomic).is_err());
    }

    #[test]
    fn variant_defects_are_named() {
        assert_eq!(
            read("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Variant::Antichess),
            Err(VariantFenError::Castling(Variant::Antichess))
        );
        assert_eq!(
            read("4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1", Variant::Horde),
            Err(VariantFenError::HordeWhiteKing)
        );
        assert_eq!(
            read("8/8/8/8/8/4P3/krbnNBRK/qrbnNBRQ w - - 0 1", Variant::RacingKings),
            Err(VariantFenError::RacingKingsPawn(Square::E3))
        );
        assert_eq!(
            read("8/8/8/8/8/8/k6R/7K w - - 0 1", Variant::RacingKings),
            Err(VariantFenError::RacingKingsCheck(Color::Black))
        );
        assert_eq!(
            read("4k3/8/8/8/8/8/8/4K3 w - - 0 1 +3+3", Variant::ThreeCheck),
            Err(VariantFenError::BothChecksGiven)
        );
        assert!(matches!(
            read("4k3/8/8/8/8/8/8/4K3 w - - 3+x 0 1", Variant::ThreeCheck),
            Err(VariantFenError::Checks(_))
        ));
        // Without counters, no check has been given.
        let plain = read("4k3/8/8/8/8/8/8/4K3 w - - 0 1", Variant::ThreeCheck).unwrap();
        assert_eq!(plain.fen().as_str(), "4k3/8/8/8/8/8/8/4K3 w - - 3+3 0 1");
        assert_eq!(
            read("8/8/8/8/8/8/8/8 w - - 0 1", Variant::Antichess),
            Err(VariantFenError::EmptyBoard)
        );
        // Horde's white pawns stand on the first rank; black's may not.
        assert!(read("4k3/8/8/8/8/8/8/PPPPPPPP w - - 0 1", Variant::Horde).is_ok());
        assert!(read("4k2p/8/8/8/8/8/8/PPPPPPPP w - - 0 1", Variant::Horde).is_err());
    }
}
