//! How a variant game ends: each variant's own win (an explosion, the
//! hill, the third check, the race, losing everything in antichess or the
//! horde's end), checkmate and stalemate where the variant has them, and
//! insufficient material by each variant's rule (lichess's, which
//! python-chess and shakmaty follow).

use crate::board::bitboard::Bitboard;
use crate::board::types::{Color, Piece, Rank, Role};
use crate::rules::outcome::{GameResult, Termination, win_for};
use crate::rules::variant::Variant;
use crate::rules::variant::position::VariantPosition;

/// Why a variant game is over, as the position shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VariantEnd {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move has no legal move and is not in check: a draw
    /// (antichess counts it a win: see [`VariantEnd::VariantWin`]).
    Stalemate,
    /// Neither side can win by the variant's material rule.
    InsufficientMaterial,
    /// Atomic: a king exploded.
    Explosion,
    /// King of the hill: a king reached d4, e4, d5 or e5.
    KingOfTheHill,
    /// Three-check: the third check was given.
    ThirdCheck,
    /// Racing kings: a king reached the eighth rank (a draw when both did).
    Race,
    /// Antichess: the side to move has no pieces or no move and wins;
    /// horde: a side lost every piece.
    VariantWin,
    /// 75 moves by each side without a capture or pawn move (a game rule,
    /// see [`VariantGame`](crate::VariantGame)).
    SeventyFiveMoveRule,
    /// The same position for the fifth time (a game rule).
    FivefoldRepetition,
}

impl VariantEnd {
    /// A stable snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            VariantEnd::Checkmate => "checkmate",
            VariantEnd::Stalemate => "stalemate",
            VariantEnd::InsufficientMaterial => "insufficient_material",
            VariantEnd::Explosion => "explosion",
            VariantEnd::KingOfTheHill => "king_of_the_hill",
            VariantEnd::ThirdCheck => "third_check",
            VariantEnd::Race => "race",
            VariantEnd::VariantWin => "variant_win",
            VariantEnd::SeventyFiveMoveRule => "seventy_five_move_rule",
            VariantEnd::FivefoldRepetition => "fivefold_repetition",
        }
    }
}

impl From<VariantEnd> for Termination {
    fn from(end: VariantEnd) -> Termination {
        match end {
            VariantEnd::Checkmate => Termination::Checkmate,
            VariantEnd::Stalemate => Termination::Stalemate,
            VariantEnd::InsufficientMaterial => Termination::InsufficientMaterial,
            VariantEnd::Explosion => Termination::Explosion,
            VariantEnd::KingOfTheHill => Termination::KingOfTheHill,
            VariantEnd::ThirdCheck => Termination::ThirdCheck,
            VariantEnd::Race => Termination::Race,
            VariantEnd::VariantWin => Termination::VariantWin,
            VariantEnd::SeventyFiveMoveRule => Termination::SeventyFiveMoveRule,
            VariantEnd::FivefoldRepetition => Termination::FivefoldRepetition,
        }
    }
}

/// The centre squares of king of the hill.
const HILL: Bitboard = Bitboard(0x0000_0018_1800_0000);

impl VariantPosition {
    /// Whether the variant's own rule has ended the game (checkmate,
    /// stalemate and insufficient material aside).
    pub fn is_variant_end(&self) -> bool {
        let pos = &self.board;
        let kings = pos.by_role(Role::King);
        match self.variant {
            Variant::Crazyhouse => false,
            Variant::Atomic => Color::ALL.into_iter().any(|c| self.king_of(c).is_none()),
            Variant::Antichess | Variant::Horde => {
                Color::ALL.into_iter().any(|c| pos.by_color(c).is_empty())
            }
            Variant::KingOfTheHill => (kings & HILL).any(),
            Variant::ThreeCheck => self.remaining_checks.contains(&0),
            Variant::RacingKings => {
                let home = kings & Bitboard::from_rank(Rank::Eighth);
                let black_home = (home & pos.by_color(Color::Black)).any();
                if home.is_empty() {
                    return false;
                }
                if pos.turn == Color::White || black_home {
                    return true;
                }
                // White got there first: over unless Black can follow.
                let Some(king) = self.king_of(Color::Black) else { return true };
                let targets = crate::board::attacks::king_attacks(king)
                    & Bitboard::from_rank(Rank::Eighth)
                    & !pos.by_color(Color::Black);
                targets
                    .into_iter()
                    .all(|sq| pos.attackers_to(sq, Color::White, pos.occupied()).any())
            }
        }
    }

    /// How the game stands: `None` while it goes on, else the result and
    /// why. The variant's own end comes first, then checkmate, stalemate
    /// and insufficient material. (The move-count and repetition rules
    /// need the game's history.)
    ///
    /// ```
    /// use arbiter_chess::{CastlingMode, GameResult, Variant, VariantEnd, VariantPosition};
    /// let pos = VariantPosition::from_fen("8/8/8/3K4/8/8/8/7k b - - 0 1",
    ///     Variant::KingOfTheHill, CastlingMode::Standard).unwrap();
    /// assert_eq!(pos.variant_end(), Some((GameResult::WhiteWins, VariantEnd::KingOfTheHill)));
    /// ```
    pub fn variant_end(&self) -> Option<(GameResult, VariantEnd)> {
        if let Some(end) = self.rule_end() {
            return Some(end);
        }
        let us = self.board.turn;
        if !self.has_legal_moves() {
            return Some(if self.variant == Variant::Antichess {
                // A side without a move wins.
                (win_for(!us), VariantEnd::VariantWin)
            } else if self.is_check() {
                (win_for(us), VariantEnd::Checkmate)
            } else {
                (GameResult::Draw, VariantEnd::Stalemate)
            });
        }
        let dead = Color::ALL.into_iter().all(|c| self.has_insufficient_material(c));
        dead.then_some((GameResult::Draw, VariantEnd::InsufficientMaterial))
    }

    /// The variant's own end, found without generating a move: all of
    /// [`VariantPosition::variant_end`]'s but antichess's side without a
    /// move, checkmate, stalemate and insufficient material.
    fn rule_end(&self) -> Option<(GameResult, VariantEnd)> {
        let pos = &self.board;
        let us = pos.turn;
        let winner = |color: Color| win_for(!color);
        match self.variant {
            Variant::Atomic => Color::ALL
                .into_iter()
                .find(|&c| self.king_of(c).is_none())
                .map(|c| (win_for(c), VariantEnd::Explosion)),
            Variant::Antichess => {
                pos.by_color(us).is_empty().then(|| (winner(us), VariantEnd::VariantWin))
            }
            Variant::KingOfTheHill => Color::ALL
                .into_iter()
                .find(|&c| (self.kings(c) & HILL).any())
                .map(|c| (winner(c), VariantEnd::KingOfTheHill)),
            Variant::ThreeCheck => Color::ALL
                .into_iter()
                .find(|c| self.remaining_checks[c.index()] == 0)
                .map(|c| (winner(c), VariantEnd::ThirdCheck)),
            Variant::Horde => {
                let gone = |c: Color| pos.by_color(c).is_empty();
                match (gone(Color::White), gone(Color::Black)) {
                    (true, true) => Some((GameResult::Draw, VariantEnd::VariantWin)),
                    (true, false) => Some((GameResult::BlackWins, VariantEnd::VariantWin)),
                    (false, true) => Some((GameResult::WhiteWins, VariantEnd::VariantWin)),
                    (false, false) => None,
                }
            }
            Variant::RacingKings => self.is_variant_end().then(|| {
                let home = |c: Color| (self.kings(c) & Bitboard::from_rank(Rank::Eighth)).any();
                let result = match (home(Color::White), home(Color::Black)) {
                    (true, true) => GameResult::Draw,
                    (true, false) => GameResult::WhiteWins,
                    _ => GameResult::BlackWins,
                };
                (result, VariantEnd::Race)
            }),
            Variant::Crazyhouse => None,
        }
    }

    /// The mark SAN gives the move that reached this position: `#` for a
    /// mate or a win or loss by the variant's rule, `+` for a check. Moves
    /// are generated only when the side to move is in check (or plays
    /// antichess, where a side without a move wins).
    pub(crate) fn san_mark(&self) -> Option<char> {
        if self.rule_end().is_some_and(|(result, _)| result != GameResult::Draw) {
            return Some('#');
        }
        if self.variant == Variant::Antichess {
            // No checks; a side without a move (or a piece) wins.
            return (!self.has_legal_moves()).then_some('#');
        }
        if !self.is_check() {
            return None;
        }
        Some(if self.has_legal_moves() { '+' } else { '#' })
    }

    /// `color`'s kings.
    fn kings(&self, color: Color) -> Bitboard {
        self.board.pieces(Piece { color, role: Role::King })
    }

    /// Whether `color` cannot win whatever happens, judged by the material
    /// (and square colours of bishops) alone, by the variant's rule.
    ///
    /// ```
    /// use arbiter_chess::{CastlingMode, Color, Variant, VariantPosition};
    /// let pos = VariantPosition::from_fen("4k3/8/8/8/8/8/8/4K2N w - - 3+3 0 1",
    ///     Variant::ThreeCheck, CastlingMode::Standard).unwrap();
    /// assert!(!pos.has_insufficient_material(Color::White));
    /// assert!(pos.has_insufficient_material(Color::Black));
    /// ```
    pub fn has_insufficient_material(&self, color: Color) -> bool {
        let pos = &self.board;
        let ours = pos.by_color(color);
        let theirs = pos.by_color(!color);
        let kings = pos.by_role(Role::King);
        let bishops = pos.by_role(Role::Bishop);
        match self.variant {
            Variant::KingOfTheHill | Variant::RacingKings => false,
            Variant::ThreeCheck => (ours - kings).is_empty(),
            Variant::Crazyhouse => {
                let in_hand = |role| self.pockets.iter().any(|p| p.count(role) > 0);
                let heavy =
                    pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
                pos.occupied().count() + self.pockets.iter().map(|p| p.total()).sum::<u32>() <= 3
                    && self.promoted.is_empty()
                    && heavy.is_empty()
                    && ![Role::Pawn, Role::Rook, Role::Queen].into_iter().any(in_hand)
            }
            Variant::Atomic => self.atomic_insufficient(color),
            Variant::Antichess => {
                if ours.is_empty() {
                    false
                } else if theirs.is_empty() {
                    true
                } else if pos.occupied() == bishops {
                    // Only bishops: ours can never be taken if every one of
                    // them stands on a colour none of theirs does.
                    let on = |side: Bitboard, squares: Bitboard| (side & squares).any();
                    (on(ours, Bitboard::LIGHT_SQUARES) && !on(theirs, Bitboard::LIGHT_SQUARES))
                        || (on(ours, Bitboard::DARK_SQUARES) && !on(theirs, Bitboard::DARK_SQUARES))
                } else if pos.occupied() == pos.by_role(Role::Knight) {
                    // A knight each: whoever moves onto the other's colour
                    // first is taken; the tempo decides.
                    match (
                        pos.by_color(Color::White).single_square(),
                        pos.by_color(Color::Black).single_square(),
                    ) {
                        (Some(white), Some(black)) => {
                            (pos.turn == color) != (white.is_light() == black.is_light())
                        }
                        _ => false,
                    }
                } else {
                    false
                }
            }
            Variant::Horde => {
                if (ours & kings).any() {
                    // The side with the king can always take the horde.
                    return false;
                }
                horde_cannot_mate(&Army::of(self, color), &Army::of(self, !color))
            }
        }
    }

    /// Atomic's material rule.
    fn atomic_insufficient(&self, color: Color) -> bool {
        let pos = &self.board;
        let kings = pos.by_role(Role::King);
        let bishops = pos.by_role(Role::Bishop);
        if self.king_of(!color).is_none() {
            // The game is already won.
            return false;
        }
        if (pos.by_color(color) - kings).is_empty() {
            return true;
        }
        if (pos.by_color(!color) - kings).any() {
            // Their own pieces can explode next to their king, unless only
            // bishops that can never touch one another are left.
            if pos.occupied() == kings | bishops {
                let on = |c: Color, squares: Bitboard| (bishops & pos.by_color(c) & squares).any();
                if !on(Color::White, Bitboard::DARK_SQUARES) {
                    return !on(Color::Black, Bitboard::LIGHT_SQUARES);
                }
                if !on(Color::White, Bitboard::LIGHT_SQUARES) {
                    return !on(Color::Black, Bitboard::DARK_SQUARES);
                }
            }
            return false;
        }
        // Against a bare king: a queen or a pawn (a future queen) mates.
        if (pos.by_role(Role::Queen) | pos.by_role(Role::Pawn)).any() {
            return false;
        }
        let minors_and_rooks = pos.by_role(Role::Knight) | bishops | pos.by_role(Role::Rook);
        if minors_and_rooks.count() == 1 {
            return true;
        }
        if pos.occupied() == kings | pos.by_role(Role::Knight) {
            return pos.by_role(Role::Knight).count() <= 2;
        }
        false
    }
}

/// One side's material, as the horde rule counts it.
#[derive(Clone, Copy)]
struct Army {
    pawns: u32,
    knights: u32,
    light_bishops: u32,
    dark_bishops: u32,
    rooks: u32,
    queens: u32,
    /// Every piece, the king included.
    all: u32,
}

impl Army {
    fn of(pos: &VariantPosition, color: Color) -> Army {
        let count = |role| pos.board.pieces(Piece { color, role }).count();
        let bishops = pos.board.pieces(Piece { color, role: Role::Bishop });
        Army {
            pawns: count(Role::Pawn),
            knights: count(Role::Knight),
            light_bishops: (bishops & Bitboard::LIGHT_SQUARES).count(),
            dark_bishops: (bishops & Bitboard::DARK_SQUARES).count(),
            rooks: count(Role::Rook),
            queens: count(Role::Queen),
            all: pos.board.by_color(color).count(),
        }
    }

    fn bishops(&self) -> u32 {
        self.light_bishops + self.dark_bishops
    }

    /// Bishops on light squares (`light`) or dark ones.
    fn bishops_on(&self, light: bool) -> u32 {
        if light { self.light_bishops } else { self.dark_bishops }
    }

    fn bishop_pair(&self) -> bool {
        self.light_bishops > 0 && self.dark_bishops > 0
    }
}

/// Lichess's horde rule: whether the horde (`horde`, no king) can never
/// mate the king of the side with `pieces`, judged by the material: the
/// mating patterns in a corner that the defender's own pieces may help
/// to build.
fn horde_cannot_mate(horde: &Army, pieces: &Army) -> bool {
    // Two bishops of one colour cover all the king's squares of that colour.
    let count = horde.pawns
        + horde.knights
        + horde.rooks
        + horde.queens
        + horde.light_bishops.min(2)
        + horde.dark_bishops.min(2);
    // The colour of the horde's bishops (light if it has one there).
    let light = horde.light_bishops > 0;
    let not_of = |n: u32| pieces.all - n;
    match count {
        0 => return true,
        4.. => return false,
        _ => {}
    }
    if (horde.pawns > 0 || horde.queens > 0) && count >= 2 {
        return false;
    }
    if horde.rooks > 0 && count >= 2 {
        // A rook mates with anything but a lone bishop against a bare king.
        let rook_and_bishop = count == 2
            && horde.rooks == 1
            && horde.bishops() == 1
            && not_of(pieces.bishops_on(light)) == 1;
        if !rook_and_bishop {
            return false;
        }
    }
    let opposite = pieces.bishops_on(!light);
    if count == 1 {
        if pieces.all == 1 {
            return true;
        }
        if horde.queens == 1 {
            return !(pieces.pawns >= 1
                || pieces.rooks >= 1
                || pieces.light_bishops >= 2
                || pieces.dark_bishops >= 2);
        }
        if horde.pawns == 1 {
            // The pawn promotes: to a queen or a knight.
            let queen = Army { pawns: 0, queens: 1, ..*horde };
            let knight = Army { pawns: 0, knights: 1, ..*horde };
            return horde_cannot_mate(&queen, pieces) && horde_cannot_mate(&knight, pieces);
        }
        if horde.rooks == 1 {
            return !(pieces.pawns >= 2
                || (pieces.rooks >= 1 && pieces.pawns >= 1)
                || (pieces.rooks >= 1 && pieces.knights >= 1)
                || (pieces.pawns >= 1 && pieces.knights >= 1));
        }
        if horde.bishops() == 1 {
            return !(opposite >= 2 || (opposite >= 1 && pieces.pawns >= 1) || pieces.pawns >= 2);
        }
        if horde.knights == 1 {
            let helpers = pieces.knights >= 2
                || pieces.pawns >= 2
                || (pieces.rooks >= 1 && pieces.knights >= 1)
                || (pieces.rooks >= 1 && pieces.bishops() >= 1)
                || (pieces.knights >= 1 && pieces.bishops() >= 1)
                || (pieces.rooks >= 1 && pieces.pawns >= 1)
                || (pieces.knights >= 1 && pieces.pawns >= 1)
                || (pieces.bishops() >= 1 && pieces.pawns >= 1)
                || (pieces.bishop_pair() && pieces.pawns >= 1);
            let not_all_bishops = |n: u32| n < 2 || not_of(n) >= 3;
            return !(pieces.all >= 4
                && helpers
                && not_all_bishops(pieces.dark_bishops)
                && not_all_bishops(pieces.light_bishops));
        }
    } else if count == 2 {
        if pieces.all == 1 {
            return true;
        }
        if horde.knights == 2 {
            return pieces.pawns + pieces.bishops() + pieces.knights == 0;
        }
        if horde.bishop_pair() {
            return !(pieces.pawns >= 1
                || pieces.bishops() >= 1
                || (pieces.knights >= 1 && pieces.rooks + pieces.queens >= 1));
        }
        if horde.bishops() >= 1 && horde.knights >= 1 {
            return !(pieces.pawns >= 1 || opposite >= 1 || not_of(pieces.bishops_on(light)) >= 3);
        }
        // Two bishops of one colour: the defender must block two squares
        // of the other colour next to its king.
        let blockers = [pieces.pawns, pieces.knights, opposite];
        let two_kinds = blockers.iter().filter(|&&n| n >= 1).count() >= 2;
        return !(two_kinds || blockers.iter().any(|&n| n >= 2));
    } else if count == 3 {
        if (horde.knights == 2 && horde.bishops() == 1) || horde.knights == 3 || horde.bishop_pair()
        {
            return false;
        }
        // Two bishops of one colour and a knight mate in a corner while
        // another defender wastes a tempo.
        return pieces.all == 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::CastlingMode;

    fn end(fen: &str, variant: Variant) -> Option<(GameResult, VariantEnd)> {
        VariantPosition::from_fen(fen, variant, CastlingMode::Standard).unwrap().variant_end()
    }

    #[test]
    fn each_variant_ends_its_own_way() {
        use GameResult::{BlackWins, Draw, WhiteWins};
        assert_eq!(
            end("8/8/8/8/8/8/8/4K3 b - - 0 1", Variant::Antichess),
            Some((BlackWins, VariantEnd::VariantWin))
        );
        assert_eq!(
            end("8/8/8/8/8/8/8/4K2k w - - 0 1 +3+0", Variant::ThreeCheck),
            Some((WhiteWins, VariantEnd::ThirdCheck))
        );
        assert_eq!(
            end("4k3/8/8/8/8/8/8/8 w - - 0 1", Variant::Horde),
            Some((BlackWins, VariantEnd::VariantWin))
        );
        assert_eq!(
            end("8/8/8/8/8/8/8/R3K3 b - - 0 1", Variant::Atomic),
            Some((WhiteWins, VariantEnd::Explosion))
        );
        assert_eq!(
            end("7K/8/k7/8/8/8/8/8 b - - 0 1", Variant::RacingKings),
            Some((WhiteWins, VariantEnd::Race))
        );
        // Black can follow onto the eighth rank: not over yet.
        assert_eq!(end("7K/k7/8/8/8/8/8/8 b - - 0 1", Variant::RacingKings), None);
        assert_eq!(
            end("K6k/8/8/8/8/8/8/8 w - - 0 1", Variant::RacingKings),
            Some((Draw, VariantEnd::Race))
        );
        // Atomic: a bare king cannot win; neither can a lone minor piece.
        assert_eq!(
            end("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", Variant::Atomic),
            Some((Draw, VariantEnd::InsufficientMaterial))
        );
        // Crazyhouse: pieces come back, so little is ever dead.
        assert_eq!(
            end("4k3/8/8/8/8/8/8/4KN2[] w - - 0 1", Variant::Crazyhouse),
            Some((Draw, VariantEnd::InsufficientMaterial))
        );
        assert_eq!(end("4k3/8/8/8/8/8/8/4K3[p] w - - 0 1", Variant::Crazyhouse), None);
    }

    #[test]
    fn horde_material() {
        let horde = |fen| {
            VariantPosition::from_fen(fen, Variant::Horde, CastlingMode::Standard)
                .unwrap()
                .has_insufficient_material(Color::White)
        };
        // A lone bishop against a bare king, or two knights.
        assert!(horde("4k3/8/8/8/8/8/8/B7 w - - 0 1"));
        assert!(horde("4k3/8/8/8/8/8/8/NN6 w - - 0 1"));
        // A queen and another piece, or a pawn and another.
        assert!(!horde("4k3/8/8/8/8/8/8/QN6 w - - 0 1"));
        assert!(!horde("4k3/8/8/8/8/8/P7/N7 w - - 0 1"));
        // A lone knight mates only with the defender's help.
        assert!(horde("4k3/8/8/8/8/8/8/N7 w - - 0 1"));
        assert!(!horde("2rnk3/1pp5/8/8/8/8/8/N7 w - - 0 1"));
    }
}
