//! The static tests of the unwinnability analysis: material that can never
//! mate, and pawn walls locked for good that the winner's pieces cannot get
//! through. Each proves unwinnability without visiting a position.

use super::hasher::KeyMap;
use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::position::Position;
use crate::board::types::{Color, Role, Square};

/// Where a piece can go behind a wall, and what it attacks from there, by
/// the fixed pawns of both sides, the piece's colour and role and its
/// square: a walk meets the same pieces behind the same wall again and
/// again.
pub(super) type FloodCache = KeyMap<(u64, u64, u16), (Bitboard, Bitboard)>;

/// Material with which `winner` can never mate, whatever the moves:
/// - a bare king (a king never gives check);
/// - a lone knight against a bare king, or against queens only with no
///   pawn on the board;
/// - bishops on one square colour only, against a king whose side has
///   nothing but bishops on that same colour: the losing king's neighbours
///   of the other colour can then be covered only by the winning king,
///   which can never cover all of them;
/// - the same bishops against bishops of that colour, queens and rooks,
///   with no pawn on the board (see the comment in the code).
///
/// Pawns count as anything they could promote to, so any pawn of the
/// winner, or any pawn or knight of the loser, defeats the test.
pub(super) fn material_cannot_mate(pos: &Position, winner: Color) -> bool {
    let kings = pos.by_role(Role::King);
    let ours = pos.by_color(winner) - kings;
    if ours.is_empty() {
        return true;
    }
    let theirs = pos.by_color(!winner) - kings;
    let knights = pos.by_role(Role::Knight);
    let bishops = pos.by_role(Role::Bishop);
    if ours == ours & knights {
        // Against queens only, a lone knight never mates either: say it
        // checks from one file and two ranks away (the other seven ways
        // are mirror images). A queen on either neighbour of the king
        // between it and the knight (on the king's file or the diagonal)
        // would take the knight, so the winning king must cover both, which
        // it can only do from two squares up the king's file, next to the
        // knight. Neither it nor the knight then covers the two neighbours
        // on the king's rank, and a queen on either would take the knight
        // across an empty square: both are ways out, and at most one is off
        // the board. No pawn may promote to anything else.
        let queens_only =
            theirs == theirs & pos.by_role(Role::Queen) && pos.by_role(Role::Pawn).is_empty();
        return !ours.more_than_one() && (theirs.is_empty() || queens_only);
    }
    if ours != ours & bishops {
        return false;
    }
    let light = (ours & Bitboard::LIGHT_SQUARES).any();
    let dark = (ours & Bitboard::DARK_SQUARES).any();
    let colour = match (light, dark) {
        (true, false) => Bitboard::LIGHT_SQUARES,
        (false, true) => Bitboard::DARK_SQUARES,
        _ => return false,
    };
    // The loser's queens and rooks do not help either, when no pawn can
    // bring anything else: bishops of one colour never give double check
    // (a bishop between another and the king would itself be giving
    // check), and against the single check, of the two orthogonal
    // neighbours of the king next to the check line's first square (the
    // other colour, out of the bishops' reach), the winning king can cover
    // only one; the other is either a way out or holds a queen or rook,
    // which can step onto that first square, interposing or taking, and
    // cannot be pinned by bishops of the other colour.
    let heavy = pos.by_role(Role::Queen) | pos.by_role(Role::Rook);
    let blockers = if pos.by_role(Role::Pawn).is_empty() { heavy } else { Bitboard::EMPTY };
    (theirs - (bishops & colour) - blockers).is_empty()
}

/// The pawn-wall test. It proves that `winner` cannot mate when the pawns
/// form a wall that is, or will be, locked for good:
/// - every pawn has an enemy pawn ahead on its file, so it can only push
///   until it meets it (it never promotes), and no pawn can ever capture:
///   no square a pawn can ever stand on is attacked from a square an enemy
///   pawn can ever stand on (this also rules out every en-passant capture),
///   and none is open now; no castling right is left;
/// - no piece of either side can ever reach a square where it could
///   capture a pawn or be captured by one (kings: no enemy pawn that is not
///   protected for good next to a square they can reach), so the pawns
///   only ever push;
/// - no square the losing king can reach is a mating square: one the
///   winner can attack (a check) and whose every neighbour the king could
///   step to can be attacked by the winner or occupied by the loser's own
///   men, one man a square. Without a check there is no mate, and a
///   square the winner can never attack nor the loser ever fill is always
///   a way out.
///
/// A king right in front of an enemy pawn counts as part of the wall when
/// it can never move (its neighbours are its own pawns that stay or
/// squares enemy pawns attack for good).
///
/// Reachable squares are over-approximated: only the pawns that can never
/// move block (a pawn facing an enemy pawn, or behind such a pawn of its
/// own colour), the other men are treated as if they could always step
/// aside, and a pawn is taken to stand on every square of its path at once.
pub(super) fn walled_in(pos: &Position, winner: Color, cache: &mut FloodCache) -> bool {
    let pawns = pos.by_role(Role::Pawn);
    if pawns.is_empty() || pos.castling_rights().any() || pos.legal_ep_square().is_some() {
        return false;
    }
    let by_colour = Color::ALL.map(|c| pawns & pos.by_color(c));
    let (white, black) = (by_colour[0], by_colour[1]);
    // A king right in front of an enemy pawn may be shut in for good (it
    // is checked below): then it stops that pawn as a pawn would.
    let kings = pos.by_role(Role::King);
    let king_walls = kings
        & ((pos.by_color(Color::White) & black.shift(-8))
            | (pos.by_color(Color::Black) & white.shift(8)));
    // Every square each side's pawns can ever stand on, all together and
    // pawn by pawn.
    let mut path = [Bitboard::EMPTY; 2];
    // The loser's men, one by one (where each can go), for counting how
    // many ways out they can fill; no allocation, as the walk runs this
    // for every position.
    let (w, l) = (winner.index(), (!winner).index());
    let mut fillers = [Bitboard::EMPTY; 64];
    let mut men = 0;
    for color in Color::ALL {
        let (step, enemy) = (color.fold(8, -8), by_colour[(!color).index()] | king_walls);
        for sq in by_colour[color.index()] {
            let mut at = Bitboard::from_square(sq);
            let mut own = at;
            loop {
                at = at.shift(step);
                if at.is_empty() {
                    // Nothing ahead stops it: it could promote.
                    return false;
                }
                if (at & enemy).any() {
                    break;
                }
                own |= at;
            }
            path[color.index()] |= own;
            if color.index() == l {
                fillers[men] = own;
                men += 1;
            }
        }
    }
    // The pawns that never move: facing an enemy pawn or a shut-in king,
    // or behind one of their own that never moves.
    let mut fixed = [white & (black | king_walls).shift(-8), black & (white | king_walls).shift(8)];
    loop {
        let more = [white & fixed[0].shift(-8), black & fixed[1].shift(8)];
        if (more[0] - fixed[0]).is_empty() && (more[1] - fixed[1]).is_empty() {
            break;
        }
        fixed = [fixed[0] | more[0], fixed[1] | more[1]];
    }
    let attacks_from = |color: Color, squares: Bitboard| {
        let mut attacked = Bitboard::EMPTY;
        for sq in squares {
            attacked |= attacks::pawn_attacks(color, sq);
        }
        attacked
    };
    // Squares each side's pawns may attack some day, and those they attack
    // for good.
    let may_attack = Color::ALL.map(|c| attacks_from(c, path[c.index()]));
    let mut always_attack = Color::ALL.map(|c| attacks_from(c, fixed[c.index()]));
    // A king in front of an enemy pawn must be shut in for good: every
    // neighbour one of its own pawns that never moves or a square an enemy
    // pawn attacks for good (an enemy pawn there is protected for good).
    // It then guards its neighbours for good.
    for color in Color::ALL {
        let (us, them) = (color.index(), (!color).index());
        for king in king_walls & pos.by_color(color) {
            let around = attacks::king_attacks(king);
            if (around - fixed[us] - always_attack[them]).any() {
                return false;
            }
            always_attack[us] |= around;
        }
    }
    if (may_attack[0] & path[1]).any() || (may_attack[1] & path[0]).any() {
        return false;
    }
    let walls = fixed[0] | fixed[1];
    let mut king_region = [Bitboard::EMPTY; 2];
    let mut king_cover = [Bitboard::EMPTY; 2];
    let mut piece_reach = [Bitboard::EMPTY; 2];
    let mut piece_attacks_all = [Bitboard::EMPTY; 2];
    for color in Color::ALL {
        let (us, them) = (color.index(), (!color).index());
        // The king: every square it can walk to, never onto a pawn that
        // stays or a square an enemy pawn attacks for good.
        let region =
            flood(pos.king_of(color), !(walls | always_attack[them]), attacks::king_attacks);
        let mut touched = Bitboard::EMPTY;
        for sq in region {
            touched |= attacks::king_attacks(sq);
        }
        // An enemy pawn it may stand next to, not protected for good,
        // could be taken.
        if (touched & (path[them] - always_attack[them])).any() {
            return false;
        }
        king_region[us] = region;
        king_cover[us] = touched;
        // The other pieces: where they can go with the fixed pawns as the
        // only obstacles. Reaching an enemy pawn's path (a capture) or a
        // square an enemy pawn may attack (a capture by the pawn) could
        // open the wall.
        for sq in pos.by_color(color) - pawns - pos.by_role(Role::King) {
            let role = pos.role_at(sq).unwrap_or(Role::Pawn);
            let key =
                (fixed[0].0, fixed[1].0, (us * 8 + role.index()) as u16 * 64 + sq.index() as u16);
            let (reach, attacked) = *cache.entry(key).or_insert_with(|| {
                let step = |from: Square| piece_attacks(role, from, walls);
                let reach = flood(sq, !fixed[us], step);
                let mut attacked = Bitboard::EMPTY;
                for from in reach {
                    attacked |= step(from);
                }
                (reach, attacked)
            });
            if (reach & (path[them] | may_attack[them])).any() {
                return false;
            }
            piece_reach[us] |= reach;
            if us == l {
                fillers[men] = reach;
                men += 1;
            }
            piece_attacks_all[us] |= attacked;
        }
    }
    let checks = piece_attacks_all[w] | may_attack[w];
    let cover = checks | king_cover[w];
    let fillable = piece_reach[l] | path[l];
    let region = king_region[l];
    (region & checks).into_iter().all(|k| {
        let open = (attacks::king_attacks(k) & region) - cover;
        if (open - fillable).any() {
            return true;
        }
        // Every way out the winner cannot cover needs a man of the loser
        // of its own.
        let able = fillers[..men].iter().filter(|r| (**r & open).any()).count();
        able < open.count() as usize
    })
}

/// What a piece of `role` attacks from `sq` with `occupied` in the way.
fn piece_attacks(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occupied),
        Role::Rook => attacks::rook_attacks(sq, occupied),
        Role::Queen => attacks::queen_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
        // Pawns never move in a wall that holds; they reach nothing.
        Role::Pawn => Bitboard::EMPTY,
    }
}

/// The squares reachable from `start` by repeated `step`s, staying inside
/// `allowed` (the start itself always counts).
fn flood(start: Square, allowed: Bitboard, step: impl Fn(Square) -> Bitboard) -> Bitboard {
    let mut reached = Bitboard::from_square(start);
    let mut frontier = reached;
    while let Some(sq) = frontier.first() {
        frontier = frontier.without(sq);
        let new = step(sq) & (allowed - reached);
        reached |= new;
        frontier |= new;
    }
    reached
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen_lenient_material(fen).unwrap()
    }

    fn wall_holds(pos: &Position, winner: Color) -> bool {
        walled_in(pos, winner, &mut FloodCache::default())
    }

    #[test]
    fn material_rules() {
        // Bare king.
        assert!(material_cannot_mate(&pos("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"), Color::Black));
        // A knight against a bare king, not against a king with a blocker.
        assert!(material_cannot_mate(&pos("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1"), Color::White));
        assert!(!material_cannot_mate(&pos("4k3/4p3/8/8/8/8/8/1N2K3 w - - 0 1"), Color::White));
        // Light bishops against light bishops: never; against a dark one or
        // a knight: a blocker exists.
        assert!(material_cannot_mate(&pos("4kb2/8/8/8/8/8/8/B1B1K3 w - - 0 1"), Color::White));
        assert!(!material_cannot_mate(&pos("4k1b1/8/8/8/8/8/8/B1B1K3 w - - 0 1"), Color::White));
        assert!(!material_cannot_mate(&pos("4k1n1/8/8/8/8/8/8/B1B1K3 w - - 0 1"), Color::White));
        // Bishops of both colours.
        assert!(!material_cannot_mate(&pos("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1"), Color::White));
        // A lone bishop, or bishops of one colour, against queens and rooks
        // (CHA's labels agree); not with a pawn on the board, and not a
        // knight against a rook, which can block the corner.
        assert!(material_cannot_mate(&pos("rr6/rk6/8/8/8/2K5/2B5/8 b - - 0 1"), Color::White));
        assert!(material_cannot_mate(&pos("k7/q7/8/8/8/2KB4/2B5/8 b - - 0 1"), Color::White));
        assert!(!material_cannot_mate(&pos("k7/q7/8/8/8/2KB4/2B4P/8 b - - 0 1"), Color::White));
        assert!(!material_cannot_mate(&pos("k7/r7/8/8/8/2K5/2N5/8 b - - 0 1"), Color::White));
        // A lone knight against queens (CHA's labels agree).
        assert!(material_cannot_mate(
            &pos("1q1q1q2/1k2q1q1/8/8/8/8/2N5/1K6 b - - 0 1"),
            Color::White
        ));
        assert!(material_cannot_mate(&pos("k7/8/K7/4q3/N7/8/8/8 b - - 0 1"), Color::White));
        assert!(!material_cannot_mate(&pos("k7/8/K7/4q3/N7/8/7p/8 b - - 0 1"), Color::White));
    }

    #[test]
    fn locked_wall() {
        let wall = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1";
        assert!(wall_holds(&pos(wall), Color::White));
        assert!(wall_holds(&pos(wall), Color::Black));
        // A light bishop behind a wall of white pawns on the light squares
        // never gets through; a dark one could be taken by a pawn.
        let light = "8/8/4k3/p1p1p1p1/P1P1P1P1/8/8/1B2K3 w - - 0 1";
        assert!(wall_holds(&pos(light), Color::White));
        let dark = "8/8/4k3/p1p1p1p1/P1P1P1P1/8/8/B3K3 w - - 0 1";
        assert!(!wall_holds(&pos(dark), Color::White));
        // A knight can jump the wall and be taken by a pawn: no proof.
        let knight = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/3NK3 w - - 0 1";
        assert!(!wall_holds(&pos(knight), Color::White));
        // A pawn that can still push: no wall.
        let open = "8/4k3/8/1p1p1p2/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1";
        assert!(!wall_holds(&pos(open), Color::White));
        // Pawns that will lock: each has an enemy pawn ahead on its file
        // and none can ever capture; the bishop never gets near the king.
        let later = "3k4/p1p1p1p1/P1P1P1P1/8/8/8/P1P1P1P1/3K1B2 w - - 0 1";
        assert!(wall_holds(&pos(later), Color::White));
        assert!(wall_holds(&pos(later), Color::Black));
        // A king shut in for good in front of an enemy pawn (h1, h2) is part
        // of the wall: the dark bishops never check it on its light square.
        let shut = "7k/8/8/3B4/8/6p1/1b4Pp/2b4K w - - 0 1";
        assert!(wall_holds(&pos(shut), Color::Black));
        assert!(!wall_holds(&pos(shut), Color::White));
        // One light bishop cannot fill the two or more light ways out the
        // dark bishops leave the king: one man fills one square.
        let count = "k6B/1b4B1/5B2/4B3/3B4/1pB1B3/pP1B4/K7 w - - 0 1";
        assert!(wall_holds(&pos(count), Color::White));
        assert!(wall_holds(&pos(count), Color::Black));
    }
}
