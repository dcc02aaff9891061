//! Why a move is illegal: one reason per rule that can be broken, with a
//! message that names the squares and pieces involved.

use std::fmt;

use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::position::{CastlingMode, Position, castling_squares};
use crate::board::types::{File, Piece, Rank, Role, Square};
use crate::notation::san::{CastlingSide, San, castling_rooks};
use crate::notation::uci::UciMove;

/// The rule a rejected move breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// The text is not a move in the notation used.
    Unparseable,
    /// No piece of the side to move (of that kind) on the from-square, or
    /// none that can reach the target.
    NoPiece,
    /// The piece does not move that way.
    CannotMoveThatWay,
    /// A piece stands in the way.
    PathBlocked,
    /// The target holds a piece of the side to move.
    CaptureOwnPiece,
    /// The move leaves the king in check (it does not answer a check).
    KingInCheck,
    /// The moving piece is pinned to its king.
    PinnedPiece,
    /// The king would step into check.
    KingIntoCheck,
    /// Castling without the right (king or rook has moved).
    CastlingWithoutRight,
    /// Castling with a piece between king and rook or on their targets.
    CastlingBlocked,
    /// Castling while in check.
    CastlingOutOfCheck,
    /// Castling through an attacked square.
    CastlingThroughCheck,
    /// Castling into check.
    CastlingIntoCheck,
    /// A pawn capturing en passant when that is not available.
    EnPassantUnavailable,
    /// A pawn reaching the last rank without saying what it becomes.
    PromotionMissing,
    /// A promotion to a king or a pawn.
    InvalidPromotion,
    /// A promotion on a move that is not a pawn reaching the last rank.
    UnexpectedPromotion,
    /// SAN that fits more than one legal move.
    AmbiguousSan,
    /// In strict mode, a legal move not written in canonical form.
    NonCanonical,
    /// The game has already ended.
    GameOver,
    /// The move was made after its mover's flag fell (its time ran out).
    FlagFell,
    /// Crazyhouse: a drop on an occupied square, or a pawn dropped on the
    /// first or last rank (or a drop in a variant without them).
    InvalidDrop,
    /// Antichess: a move that does not capture while a capture is possible.
    CaptureRequired,
    /// Atomic: a capture whose explosion takes the mover's own king (or a
    /// king capturing).
    ExplodesOwnKing,
    /// Racing kings: a move that gives check.
    GivesCheck,
}

impl IllegalReason {
    /// Every reason, in declaration order.
    pub const ALL: [IllegalReason; 25] = [
        IllegalReason::Unparseable,
        IllegalReason::NoPiece,
        IllegalReason::CannotMoveThatWay,
        IllegalReason::PathBlocked,
        IllegalReason::CaptureOwnPiece,
        IllegalReason::KingInCheck,
        IllegalReason::PinnedPiece,
        IllegalReason::KingIntoCheck,
        IllegalReason::CastlingWithoutRight,
        IllegalReason::CastlingBlocked,
        IllegalReason::CastlingOutOfCheck,
        IllegalReason::CastlingThroughCheck,
        IllegalReason::CastlingIntoCheck,
        IllegalReason::EnPassantUnavailable,
        IllegalReason::PromotionMissing,
        IllegalReason::InvalidPromotion,
        IllegalReason::UnexpectedPromotion,
        IllegalReason::AmbiguousSan,
        IllegalReason::NonCanonical,
        IllegalReason::GameOver,
        IllegalReason::FlagFell,
        IllegalReason::InvalidDrop,
        IllegalReason::CaptureRequired,
        IllegalReason::ExplodesOwnKing,
        IllegalReason::GivesCheck,
    ];

    /// Whether a move text rejected for this reason reads as a move that
    /// was made on the board and is illegal in its position: a completed
    /// illegal move, which an arbiter rules on (FIDE 7.5) when asked
    /// ([`crate::IllegalMoves`]). Not such a move: text that is not a move
    /// (unparseable, or SAN that fits more than one move), a legal move
    /// written in a form strict mode refuses, and moves after the game
    /// ended or the mover's flag fell.
    ///
    /// ```
    /// use arbiter_chess::IllegalReason;
    /// assert!(IllegalReason::KingIntoCheck.is_completed_move());
    /// assert!(!IllegalReason::Unparseable.is_completed_move());
    /// ```
    pub const fn is_completed_move(self) -> bool {
        !matches!(
            self,
            IllegalReason::Unparseable
                | IllegalReason::AmbiguousSan
                | IllegalReason::NonCanonical
                | IllegalReason::GameOver
                | IllegalReason::FlagFell
        )
    }

    /// A stable snake_case name, for logs and metrics labels.
    pub const fn as_str(self) -> &'static str {
        match self {
            IllegalReason::Unparseable => "unparseable",
            IllegalReason::NoPiece => "no_piece",
            IllegalReason::CannotMoveThatWay => "cannot_move_that_way",
            IllegalReason::PathBlocked => "path_blocked",
            IllegalReason::CaptureOwnPiece => "capture_own_piece",
            IllegalReason::KingInCheck => "king_in_check",
            IllegalReason::PinnedPiece => "pinned_piece",
            IllegalReason::KingIntoCheck => "king_into_check",
            IllegalReason::CastlingWithoutRight => "castling_without_right",
            IllegalReason::CastlingBlocked => "castling_blocked",
            IllegalReason::CastlingOutOfCheck => "castling_out_of_check",
            IllegalReason::CastlingThroughCheck => "castling_through_check",
            IllegalReason::CastlingIntoCheck => "castling_into_check",
            IllegalReason::EnPassantUnavailable => "en_passant_unavailable",
            IllegalReason::PromotionMissing => "promotion_missing",
            IllegalReason::InvalidPromotion => "invalid_promotion",
            IllegalReason::UnexpectedPromotion => "unexpected_promotion",
            IllegalReason::AmbiguousSan => "ambiguous_san",
            IllegalReason::NonCanonical => "non_canonical",
            IllegalReason::GameOver => "game_over",
            IllegalReason::FlagFell => "flag_fell",
            IllegalReason::InvalidDrop => "invalid_drop",
            IllegalReason::CaptureRequired => "capture_required",
            IllegalReason::ExplodesOwnKing => "explodes_own_king",
            IllegalReason::GivesCheck => "gives_check",
        }
    }
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rejected move: the broken rule and a sentence about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal {
    pub reason: IllegalReason,
    pub message: String,
}

impl Illegal {
    pub(crate) fn new(reason: IllegalReason, message: impl Into<String>) -> Illegal {
        Illegal { reason, message: message.into() }
    }
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

fn describe(piece: Piece) -> String {
    format!("{} {}", piece.color.name(), piece.role.name())
}

/// Why the UCI move `uci`, which is not legal in `pos`, is illegal.
///
/// ```
/// use arbiter_chess::{IllegalReason, Position, UciMove, diagnose_uci};
/// let pos = Position::default();
/// let why = diagnose_uci(&pos, &"e2e5".parse::<UciMove>().unwrap());
/// assert_eq!(why.reason, IllegalReason::CannotMoveThatWay);
/// ```
pub fn diagnose_uci(pos: &Position, uci: &UciMove) -> Illegal {
    let (from, to, promotion) = match *uci {
        UciMove::Normal { from, to, promotion } => (from, to, promotion),
        UciMove::Put { .. } => return no_drops(),
    };
    let us = pos.turn();
    let Some(piece) = pos.piece_at(from) else {
        return Illegal::new(IllegalReason::NoPiece, format!("there is no piece on {from}"));
    };
    if piece.color != us {
        return Illegal::new(
            IllegalReason::NoPiece,
            format!(
                "the piece on {} is {}'s, and {} is to move",
                from,
                piece.color.name(),
                us.name()
            ),
        );
    }
    if piece.role == Role::King && promotion.is_none() {
        let back = from.rank() == us.back_rank() && to.rank() == us.back_rank();
        let distance = from.file().index().abs_diff(to.file().index());
        let onto_castling_rook = pos.castling_rights().contains(to);
        // In Chess960 the king's step to its castling square may be longer
        // than two files, and king takes own rook is castling even without
        // the right (which is then the reason).
        let attempt = match pos.castling_mode() {
            CastlingMode::Standard => distance == 2 || onto_castling_rook,
            CastlingMode::Chess960 => {
                let own_rook = pos.pieces(Piece { color: us, role: Role::Rook }).contains(to);
                let castling_file = matches!(to.file(), File::C | File::G);
                own_rook || (distance >= 2 && castling_file)
            }
        };
        if back && attempt {
            let side = if to > from { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            return diagnose_castling(pos, side);
        }
    }
    diagnose_piece_move(pos, from, to, promotion)
}

/// A drop, in chess.
#[cold]
fn no_drops() -> Illegal {
    Illegal::new(
        IllegalReason::InvalidDrop,
        "pieces are put from the pocket only in crazyhouse".to_owned(),
    )
}

/// Why the SAN `san`, which names no single legal move in `pos`, is rejected.
///
/// ```
/// use arbiter_chess::{IllegalReason, Position, San, diagnose_san};
/// let pos = Position::default();
/// let why = diagnose_san(&pos, &"Nd2".parse::<San>().unwrap());
/// assert_eq!(why.reason, IllegalReason::CaptureOwnPiece);
/// ```
pub fn diagnose_san(pos: &Position, san: &San) -> Illegal {
    let us = pos.turn();
    let (role, file, rank, to, promotion) = match *san {
        San::Castle(side) => return diagnose_castling(pos, side),
        San::Normal { role, file, rank, to, promotion, .. } => (role, file, rank, to, promotion),
        San::Put { .. } => return no_drops(),
    };
    if san.to_move(pos) == Err(crate::notation::san::SanError::Ambiguous) {
        return Illegal::new(
            IllegalReason::AmbiguousSan,
            format!("{san} is ambiguous: more than one {} can move to {to}", role.name()),
        );
    }
    let piece = Piece { color: us, role };
    let mut from = pos.pieces(piece);
    if from.is_empty() {
        return Illegal::new(
            IllegalReason::NoPiece,
            format!("{} has no {}", us.name(), role.name()),
        );
    }
    if let Some(f) = file {
        from &= Bitboard::from_file(f);
    }
    if let Some(r) = rank {
        from &= Bitboard::from_rank(r);
    }
    if from.is_empty() {
        let place = match (file, rank) {
            (Some(f), Some(r)) => format!("on {}", Square::from_coords(f, r)),
            (Some(f), None) => format!("on the {}-file", f.char()),
            _ => format!("on the {} rank", rank.map_or('?', Rank::char)),
        };
        return Illegal::new(
            IllegalReason::NoPiece,
            format!("there is no {} {place}", describe(piece)),
        );
    }
    // The most telling reason over all candidate pieces: a move the piece
    // could make but for the king beats a blocked path, which beats a piece
    // that does not move that way at all.
    let rank_of = |reason: IllegalReason| match reason {
        IllegalReason::CannotMoveThatWay => 0,
        IllegalReason::PathBlocked => 1,
        _ => 2,
    };
    let best = from
        .into_iter()
        .map(|sq| diagnose_piece_move(pos, sq, to, promotion))
        .max_by_key(|illegal| rank_of(illegal.reason));
    match best {
        Some(illegal) if illegal.reason != IllegalReason::CannotMoveThatWay => illegal,
        _ => {
            Illegal::new(IllegalReason::NoPiece, format!("no {} can move to {to}", describe(piece)))
        }
    }
}

/// Why castling to `side` is illegal, checking the conditions in order:
/// the right, the empty squares, not in check, not through check, not into check.
pub fn diagnose_castling(pos: &Position, side: CastlingSide) -> Illegal {
    let us = pos.turn();
    let them = !us;
    let side_name = match side {
        CastlingSide::KingSide => "king-side",
        CastlingSide::QueenSide => "queen-side",
    };
    let king = pos.king_of(us);
    let Some(rook) = castling_rooks(pos, side).first() else {
        return Illegal::new(
            IllegalReason::CastlingWithoutRight,
            format!("{} has no right to castle {side_name}", us.name()),
        );
    };
    let (king_to, rook_to) = castling_squares(us, king, rook);
    let must_be_empty = (attacks::between(king, king_to).with(king_to)
        | attacks::between(rook, rook_to).with(rook_to))
    .without(king)
    .without(rook);
    if let Some(blocker) = (pos.occupied() & must_be_empty).first() {
        return Illegal::new(
            IllegalReason::CastlingBlocked,
            format!("cannot castle {side_name}: {blocker} is occupied"),
        );
    }
    if pos.is_check() {
        return Illegal::new(
            IllegalReason::CastlingOutOfCheck,
            format!("cannot castle {side_name} while in check"),
        );
    }
    let without_king = pos.occupied().without(king);
    if let Some(sq) = attacks::between(king, king_to)
        .into_iter()
        .find(|&sq| pos.is_attacked(sq, them, without_king))
    {
        return Illegal::new(
            IllegalReason::CastlingThroughCheck,
            format!("cannot castle {side_name}: the king would pass through check on {sq}"),
        );
    }
    Illegal::new(
        IllegalReason::CastlingIntoCheck,
        format!("cannot castle {side_name}: the king would be in check on {king_to}"),
    )
}

/// Why the piece of the side to move on `from` cannot go to `to`.
fn diagnose_piece_move(
    pos: &Position,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Illegal {
    let us = pos.turn();
    let Some(piece) = pos.piece_at(from).filter(|p| p.color == us) else {
        return Illegal::new(
            IllegalReason::NoPiece,
            format!("there is no {} piece on {from}", us.name()),
        );
    };
    let name = describe(piece);
    if let Some(own) = pos.piece_at(to).filter(|p| p.color == us) {
        return Illegal::new(
            IllegalReason::CaptureOwnPiece,
            format!("the {name} on {from} cannot capture its own {} on {to}", own.role.name()),
        );
    }
    if from == to {
        return Illegal::new(
            IllegalReason::CannotMoveThatWay,
            format!("the {name} on {from} must leave its square"),
        );
    }
    let occupied = pos.occupied();
    let mut en_passant = false;
    if piece.role == Role::Pawn {
        if let Some(illegal) = diagnose_pawn_geometry(pos, from, to, &mut en_passant) {
            return illegal;
        }
        let last = Rank::Eighth.relative_to(us);
        match promotion {
            None if to.rank() == last => {
                return Illegal::new(
                    IllegalReason::PromotionMissing,
                    format!(
                        "the pawn reaching {to} must promote: say to a queen, rook, bishop or knight"
                    ),
                );
            }
            Some(role @ (Role::King | Role::Pawn)) if to.rank() == last => {
                return Illegal::new(
                    IllegalReason::InvalidPromotion,
                    format!("a pawn cannot promote to a {}", role.name()),
                );
            }
            Some(_) if to.rank() != last => {
                return Illegal::new(
                    IllegalReason::UnexpectedPromotion,
                    format!("only a pawn reaching the last rank promotes, and {to} is not on it"),
                );
            }
            _ => {}
        }
    } else {
        if promotion.is_some() {
            return Illegal::new(
                IllegalReason::UnexpectedPromotion,
                format!("only a pawn promotes, not a {}", piece.role.name()),
            );
        }
        let reach = match piece.role {
            Role::Knight => attacks::knight_attacks(from),
            Role::King => attacks::king_attacks(from),
            Role::Bishop => attacks::bishop_attacks(from, Bitboard::EMPTY),
            Role::Rook => attacks::rook_attacks(from, Bitboard::EMPTY),
            _ => attacks::queen_attacks(from, Bitboard::EMPTY),
        };
        if !reach.contains(to) {
            return Illegal::new(
                IllegalReason::CannotMoveThatWay,
                format!("a {} cannot move from {from} to {to}", piece.role.name()),
            );
        }
        if let Some(blocker) = (attacks::between(from, to) & occupied).first() {
            return Illegal::new(
                IllegalReason::PathBlocked,
                format!("the {name} on {from} is blocked by the piece on {blocker}"),
            );
        }
    }
    // The move obeys how the piece moves: it fails because of the king.
    let king = pos.king_of(us);
    if piece.role == Role::King {
        return Illegal::new(
            IllegalReason::KingIntoCheck,
            format!("the king would be in check on {to}"),
        );
    }
    if pos.pinned().contains(from) && !attacks::line(king, from).contains(to) {
        return Illegal::new(
            IllegalReason::PinnedPiece,
            format!("the {name} on {from} is pinned to its king"),
        );
    }
    if en_passant && !pos.is_check() {
        return Illegal::new(
            IllegalReason::PinnedPiece,
            format!("capturing en passant on {to} would expose the king to check"),
        );
    }
    Illegal::new(
        IllegalReason::KingInCheck,
        format!("{} is in check, and {from}{to} does not parry it", us.name()),
    )
}

/// Whether a pawn of the side to move on `from` could step or capture to `to`
/// by the pawn's rules alone; sets `en_passant` for an en-passant capture.
fn diagnose_pawn_geometry(
    pos: &Position,
    from: Square,
    to: Square,
    en_passant: &mut bool,
) -> Option<Illegal> {
    let us = pos.turn();
    let occupied = pos.occupied();
    let forward = us.fold(8, -8);
    if attacks::pawn_attacks(us, from).contains(to) {
        if pos.by_color(!us).contains(to) {
            return None;
        }
        if pos.ep_square() == Some(to) {
            *en_passant = true;
            return None;
        }
        let beside = Square::from_coords(to.file(), from.rank());
        let looks_like_ep = to.rank() == Rank::Sixth.relative_to(us)
            && pos.pieces(Piece { color: !us, role: Role::Pawn }).contains(beside);
        return Some(if looks_like_ep {
            Illegal::new(
                IllegalReason::EnPassantUnavailable,
                format!(
                    "en passant on {to} is not available: the pawn on {beside} did not just advance two squares"
                ),
            )
        } else {
            Illegal::new(
                IllegalReason::CannotMoveThatWay,
                format!(
                    "the pawn on {from} captures diagonally, and there is nothing to capture on {to}"
                ),
            )
        });
    }
    let one = from.offset(forward);
    let two =
        one.and_then(|s| s.offset(forward)).filter(|_| from.rank() == Rank::Second.relative_to(us));
    if Some(to) == one || Some(to) == two {
        let path = attacks::between(from, to).with(to);
        return (occupied & path).first().map(|blocker| {
            Illegal::new(
                IllegalReason::PathBlocked,
                format!("the pawn on {from} is blocked by the piece on {blocker}"),
            )
        });
    }
    Some(Illegal::new(
        IllegalReason::CannotMoveThatWay,
        format!("a pawn cannot move from {from} to {to}"),
    ))
}
