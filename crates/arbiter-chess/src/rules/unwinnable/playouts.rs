//! Who can still checkmate: a sound unwinnability analysis for dead
//! positions (FIDE 5.2.2) and flag fall (6.9).
//!
//! The question is cooperative: can `winner` checkmate by *any* series of
//! legal moves, both sides helping? The answer is one of
//! [`Winnability::Winnable`] with a helpmate (the proof: legal moves ending in
//! `winner` mating), [`Winnability::Unwinnable`] (proven) or
//! [`Winnability::Undetermined`] (the node budget ran out).
//!
//! The method follows the idea of M. Ambrona, "A Practical Algorithm for
//! Chess Unwinnability" (FUN 2022), with its own design:
//!
//! 1. Static tests that prove unwinnability: material that cannot mate
//!    (a bare king; a lone knight against a bare king or against queens
//!    only; bishops of one square colour against nothing that could block
//!    on the other colour, or against queens and rooks only, with no pawn
//!    on the board), and pawn walls locked for good or bound to lock
//!    (every pawn meets an enemy pawn on its file and none can ever
//!    capture; no piece able to reach a square where a pawn could capture
//!    it or be captured; and no square the losing king can reach where the
//!    winner could check it while covering, or the loser filling, every
//!    way out, one man a square).
//! 2. Guided play-outs: lines in which the winner's pieces head for the
//!    losing king and the losing king heads for a corner where the
//!    winner's material can mate, with a random tie-break, a mate in one
//!    taken whenever there is one. The loser's pieces gather next to the
//!    corner or the king as blockers, or (in some play-outs) its queens and
//!    rooks are given to the winning king, or the winning king goes for
//!    the loser's pawns that block its own (more often when none of its
//!    pawns can move), then back to help mate. Near the corner, a full
//!    search of a winner's move, a reply and a mate. Most ordinary
//!    positions get their helpmate here.
//! 3. A short full-width search (mate within three plies) with a
//!    transposition table.
//! 4. A breadth-first walk over every position reachable from the start,
//!    pruned where a static test proves the winner cannot mate. A walk that
//!    runs out of positions proves [`Winnability::Unwinnable`]; one that meets a
//!    mate gives a shortest helpmate.
//!
//! Play-outs and walk take turns with doubling shares of the budget (the
//! walk resumes where it stopped), so that an easy helpmate costs little
//! walking and a small world little play.
//!
//! Every phase counts the positions it visits against one node budget
//! ([`SearchBudget`]). As in the paper, the clocks and repetitions are not part of
//! the question (the 50- and 75-move rules and fivefold repetition are left
//! out), and positions are told apart by two independent 64-bit hashes.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind, MoveList};
use crate::board::position::Position;
use crate::board::types::{Color, Piece, Role, Square};

/// The answer for one colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Winnability {
    /// The colour can mate: the moves (from the position analysed, both
    /// sides in turn) end with that colour checkmating.
    Winnable(Vec<Move>),
    /// Proven: no series of legal moves lets the colour checkmate.
    Unwinnable,
    /// The budget ran out before a proof either way.
    Undetermined,
}

impl Winnability {
    /// The name used on the wire and in the CLI: `WINNABLE`, `UNWINNABLE`
    /// or `UNDETERMINED`.
    pub const fn name(&self) -> &'static str {
        match self {
            Winnability::Winnable(_) => "WINNABLE",
            Winnability::Unwinnable => "UNWINNABLE",
            Winnability::Undetermined => "UNDETERMINED",
        }
    }
}

/// How much work one analysis (one position, one colour) may do, in
/// positions visited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchBudget {
    /// Positions visited before giving up with [`Winnability::Undetermined`].
    pub nodes: u64,
}

impl SearchBudget {
    /// The default for per-ply use (quick mode): a few microseconds for
    /// most positions.
    pub const QUICK: SearchBudget = SearchBudget { nodes: 2_000 };
    /// The default for a final position or a single query (full mode):
    /// about half a second per colour at most on the hardest composed
    /// positions, a few hundred microseconds on ordinary ones.
    pub const FULL: SearchBudget = SearchBudget { nodes: 1_000_000 };
}

impl Default for SearchBudget {
    fn default() -> SearchBudget {
        SearchBudget::FULL
    }
}

/// Whether `winner` can still checkmate in `pos`.
///
/// ```
/// use arbiter_chess::{analyse, SearchBudget, Winnability};
/// use arbiter_chess::{Color, Position};
/// // A locked pawn wall: neither king can ever get through.
/// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
/// assert_eq!(analyse(&wall, Color::White, SearchBudget::FULL), Winnability::Unwinnable);
/// let start = Position::default();
/// assert!(matches!(analyse(&start, Color::Black, SearchBudget::FULL), Winnability::Winnable(_)));
/// ```
pub fn analyse(pos: &Position, winner: Color, budget: SearchBudget) -> Winnability {
    Analyser::new(pos, winner, budget).run(budget)
}

/// One analysis (one position, one colour) that can be given more budget
/// and then resumes where it stopped, up to a ceiling fixed at the start:
/// [`crate::rules::dead::is_dead`] asks both colours with growing budgets,
/// since a helpmate for either settles its question. Run once with the
/// ceiling as its budget, it is [`analyse`], step for step.
pub(crate) struct Analyser {
    state: State,
}

/// Where an [`Analyser`] stands.
enum State {
    Decided(Winnability),
    Open(Box<Open>),
}

/// The work of an analysis still open.
struct Open {
    pos: Position,
    search: Search,
    walk: Walker,
    /// The share of the budget each phase gets this turn.
    share: u64,
    /// Whose turn it is: the play-outs' or the walk's.
    walking: bool,
    /// Where the current phase's share ends, in positions visited (`None`
    /// until the phase has started).
    end: Option<u64>,
    /// The most positions the analysis may ever visit.
    ceiling: u64,
}

impl Analyser {
    /// An analysis of whether `winner` can mate in `pos` that will never
    /// visit more than `ceiling` positions. The static tests run here.
    pub(crate) fn new(pos: &Position, winner: Color, ceiling: SearchBudget) -> Analyser {
        let state = if pos.turn() != winner && pos.is_check() && !pos.has_legal_moves() {
            // Already mated: the empty line is the proof.
            State::Decided(Winnability::Winnable(Vec::new()))
        } else if statically_unwinnable(pos, winner) {
            State::Decided(Winnability::Unwinnable)
        } else {
            State::Open(Box::new(Open {
                pos: pos.clone(),
                search: Search::new(pos, winner, ceiling.nodes),
                walk: Walker::new(pos),
                share: 64,
                walking: false,
                end: None,
                ceiling: ceiling.nodes,
            }))
        };
        Analyser { state }
    }

    /// Goes on until a verdict or `budget` positions visited in all (at
    /// most the ceiling); an open question stays open for a later call.
    pub(crate) fn run(&mut self, budget: SearchBudget) -> Winnability {
        let open = match &mut self.state {
            State::Decided(verdict) => return verdict.clone(),
            State::Open(open) => open,
        };
        let verdict = open.run(budget.nodes.min(open.ceiling));
        if verdict != Winnability::Undetermined {
            self.state = State::Decided(verdict.clone());
        }
        verdict
    }
}

impl Open {
    fn run(&mut self, limit: u64) -> Winnability {
        let (pos, search, walk) = (&self.pos, &mut self.search, &mut self.walk);
        search.limit = limit;
        // Play-outs find most helpmates; the exhaustive walk proves the
        // positions whose reachable set is small. Neither knows in advance
        // which kind of position it faces, so they take turns with growing
        // shares of the budget, the walk resuming where it stopped: an easy
        // answer of either kind costs little of the other.
        loop {
            if !self.walking {
                let end = *self.end.get_or_insert(search.used + self.share);
                if let Some(line) = search.playouts(pos, end) {
                    return Winnability::Winnable(line);
                }
                if search.used >= end {
                    (self.walking, self.end) = (true, None);
                }
                if search.used >= search.limit {
                    return Winnability::Undetermined;
                }
                continue;
            }
            let end = match self.end {
                Some(end) => end,
                None => {
                    if self.share == 256
                        && let Some(line) = search.mate_in_three(pos)
                    {
                        return Winnability::Winnable(line);
                    }
                    // A walk whose queue outgrows what is left of the
                    // budget will not finish: its shares go to the
                    // play-outs instead.
                    let left = self.ceiling.saturating_sub(search.used);
                    if walk.queue.len() as u64 > left.saturating_mul(2) {
                        (self.walking, self.share) = (false, self.share * 2);
                        if search.used >= search.limit {
                            return Winnability::Undetermined;
                        }
                        continue;
                    }
                    *self.end.insert(search.used + self.share)
                }
            };
            match walk.resume(search, end) {
                Walk::Mate(line) => return Winnability::Winnable(line),
                Walk::Exhausted => return Winnability::Unwinnable,
                Walk::OutOfBudget => {}
            }
            if search.used >= end {
                (self.walking, self.end, self.share) = (false, None, self.share * 2);
            }
            if search.used >= search.limit {
                return Winnability::Undetermined;
            }
        }
    }
}

/// Whether `line`, played from `start`, is legal move by move and ends
/// with `winner` checkmating: the check of a [`Winnability::Winnable`]
/// helpmate.
///
/// ```
/// use arbiter_chess::{analyse, replays_to_mate, SearchBudget, Winnability};
/// use arbiter_chess::{Color, Position};
/// let start = Position::default();
/// let Winnability::Winnable(line) = analyse(&start, Color::Black, SearchBudget::FULL) else { panic!() };
/// assert!(replays_to_mate(&start, Color::Black, &line));
/// assert!(!replays_to_mate(&start, Color::White, &line));
/// ```
pub fn replays_to_mate(start: &Position, winner: Color, line: &[Move]) -> bool {
    let mut pos = start.clone();
    for &m in line {
        if !pos.is_legal(m) {
            return false;
        }
        pos.play_unchecked(m);
    }
    pos.turn() == !winner && pos.is_check() && !pos.has_legal_moves()
}

/// A cheap gate for per-ply checks: `false` means `pos` is certainly not
/// dead beyond what [`crate::rules::outcome::is_insufficient_material`]
/// sees, so the analysis can be skipped. It holds when there are pawns and
/// none of them can move now (every pawn stands in front of a pawn and has
/// nothing to capture), the shape of a locked wall.
///
/// ```
/// use arbiter_chess::may_be_dead;
/// use arbiter_chess::Position;
/// assert!(!may_be_dead(&Position::default()));
/// let wall: Position = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1".parse().unwrap();
/// assert!(may_be_dead(&wall));
/// ```
pub fn may_be_dead(pos: &Position) -> bool {
    let pawns = pos.by_role(Role::Pawn);
    if pawns.is_empty() {
        return false;
    }
    let white = pawns & pos.by_color(Color::White);
    let black = pawns & pos.by_color(Color::Black);
    // Every pawn has a pawn right in front of it.
    let blocked =
        (white.shift(8) & pawns).shift(-8) == white && (black.shift(-8) & pawns).shift(8) == black;
    blocked
        && pawn_captures(pos, Color::White).is_empty()
        && pawn_captures(pos, Color::Black).is_empty()
}

/// Squares `color`'s pawns attack that hold an enemy piece.
fn pawn_captures(pos: &Position, color: Color) -> Bitboard {
    let mut attacked = Bitboard::EMPTY;
    for sq in pos.pieces(Piece { color, role: Role::Pawn }) {
        attacked |= attacks::pawn_attacks(color, sq);
    }
    attacked & pos.by_color(!color)
}

/// The static tests: material that cannot mate, or a pawn wall locked for
/// good that the winner's pieces cannot get through.
///
/// ```
/// use arbiter_chess::statically_unwinnable;
/// use arbiter_chess::{Color, Position};
/// let kn_k: Position = "4k3/8/8/8/8/8/8/1N2K3 w - - 0 1".parse().unwrap();
/// assert!(statically_unwinnable(&kn_k, Color::White));
/// assert!(statically_unwinnable(&kn_k, Color::Black));
/// ```
pub fn statically_unwinnable(pos: &Position, winner: Color) -> bool {
    material_cannot_mate(pos, winner) || walled_in(pos, winner, &mut FloodCache::default())
}

/// Where a piece can go behind a wall, and what it attacks from there, by
/// the fixed pawns of both sides, the piece's colour and role and its
/// square: a walk meets the same pieces behind the same wall again and
/// again.
type FloodCache = KeyMap<(u64, u64, u16), (Bitboard, Bitboard)>;

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
fn material_cannot_mate(pos: &Position, winner: Color) -> bool {
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
fn walled_in(pos: &Position, winner: Color, cache: &mut FloodCache) -> bool {
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

/// A hasher for keys that are already hashes (Zobrist keys): it only
/// mixes them, which is much cheaper than the standard library's SipHash.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Sets and maps of position keys.
type KeySet<K> = HashSet<K, BuildHasherDefault<KeyHasher>>;
type KeyMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// How a walk over the reachable positions ended.
enum Walk {
    Mate(Vec<Move>),
    Exhausted,
    OutOfBudget,
}

/// The state shared by the phases of one analysis.
struct Search {
    winner: Color,
    /// Positions visited so far, by every phase.
    used: u64,
    /// The whole budget.
    limit: u64,
    /// Seed of the play-outs' random tie-break (fixed: answers are
    /// reproducible).
    rng: u64,
    /// How much randomness the current play-out adds to the scores.
    noise: u64,
    /// Play-outs run so far.
    round: usize,
    /// The corners where a mate can happen with the winner's material: a
    /// lone bishop's colour decides it.
    corners: Bitboard,
    /// The corner the losing king heads for in the current play-out.
    target: Square,
    /// Whether the current play-out has the loser give its pieces away to
    /// the winner's king (they could interpose or take the checking piece)
    /// rather than gather them round its own king as blockers.
    sacrifice: bool,
    /// Whether the loser's pieces gather next to the target corner (where
    /// the king will be mated) rather than next to the king itself.
    corner_blockers: bool,
    /// Whether the winning king goes for the loser's pawns (which may be
    /// all that keeps the winner's pawns from promoting) in the current
    /// play-out.
    hunt: bool,
    /// Whether the winner has pawns and none of them can move at the
    /// start (as behind every blocked structure [`crate::dead`]
    /// analyses).
    stuck: bool,
    /// Positions near the target corner already searched for a mate in
    /// two moves.
    finished: KeySet<u64>,
}

impl Search {
    fn new(start: &Position, winner: Color, limit: u64) -> Search {
        let ours = start.by_color(winner) - start.by_role(Role::King);
        let bishops = start.by_role(Role::Bishop);
        let pawns = start.pieces(Piece { color: winner, role: Role::Pawn });
        let mut corners = Bitboard::EMPTY;
        for corner in [Square::A1, Square::H1, Square::A8, Square::H8] {
            corners = corners.with(corner);
        }
        // With bishops of one square colour only (and no pawn to promote),
        // the checked king stands on that colour: a corner of it.
        if ours.any() && ours == ours & bishops {
            if ours == ours & Bitboard::LIGHT_SQUARES {
                corners &= Bitboard::LIGHT_SQUARES;
            } else if ours == ours & Bitboard::DARK_SQUARES {
                corners &= Bitboard::DARK_SQUARES;
            }
        }
        Search {
            winner,
            used: 0,
            limit,
            rng: 0x9e37_79b9_7f4a_7c15,
            noise: 12,
            round: 0,
            corners,
            target: Square::A1,
            sacrifice: false,
            corner_blockers: false,
            hunt: false,
            stuck: pawns.any()
                && (pawns.shift(winner.fold(8, -8)) - start.occupied()).is_empty()
                && pawn_captures(start, winner).is_empty(),
            finished: KeySet::default(),
        }
    }

    /// Counts a visited position; `false` once `limit` is spent.
    fn spend(&mut self, limit: u64) -> bool {
        self.used += 1;
        self.used <= limit.min(self.limit)
    }

    fn random(&mut self) -> u64 {
        // xorshift64*: fast, and good enough for breaking ties.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A mate by the winner within three plies, full width.
    fn mate_in_three(&mut self, pos: &Position) -> Option<Vec<Move>> {
        let mut seen: KeyMap<u64, u8> = KeyMap::default();
        let plies: &[u8] = if pos.turn() == self.winner { &[1, 3] } else { &[2] };
        for &depth in plies {
            let mut line = Vec::new();
            if self.helpmate(pos, depth, &mut seen, &mut line) {
                line.reverse();
                return Some(line);
            }
        }
        None
    }

    /// Depth-first search for a mate by the winner in exactly `depth`
    /// plies (odd when the winner moves first). `line` receives the moves
    /// in reverse order.
    fn helpmate(
        &mut self,
        pos: &Position,
        depth: u8,
        seen: &mut KeyMap<u64, u8>,
        line: &mut Vec<Move>,
    ) -> bool {
        if !self.spend(self.limit) {
            return false;
        }
        if depth == 1 {
            return match self.mate_in_one(pos) {
                Some(m) => {
                    line.push(m);
                    true
                }
                None => false,
            };
        }
        let key = pos.zobrist();
        if seen.get(&key).is_some_and(|&d| d >= depth) {
            return false;
        }
        for m in pos.legal_moves() {
            let next = pos.play(m);
            if material_cannot_mate(&next, self.winner) {
                continue;
            }
            if self.helpmate(&next, depth - 1, seen, line) {
                line.push(m);
                return true;
            }
        }
        seen.insert(key, depth);
        false
    }

    /// A move of the winner (to move in `pos`) that mates.
    fn mate_in_one(&mut self, pos: &Position) -> Option<Move> {
        if pos.turn() != self.winner {
            return None;
        }
        mating_move(pos, &pos.legal_moves())
    }

    /// A winner's move, a reply and a mating move, from `pos` with the
    /// winner to move and `moves` its legal moves.
    fn mate_in_two_moves(
        &mut self,
        pos: &Position,
        moves: &MoveList,
        limit: u64,
    ) -> Option<[Move; 3]> {
        for &first in moves {
            let after = pos.play(first);
            if material_cannot_mate(&after, self.winner) {
                continue;
            }
            for reply in after.legal_moves() {
                if !self.spend(limit) {
                    return None;
                }
                let next = after.play(reply);
                if let Some(mate) = mating_move(&next, &next.legal_moves()) {
                    return Some([first, reply, mate]);
                }
            }
        }
        None
    }

    /// Guided random play-outs until one mates or `limit` positions have
    /// been visited in all.
    fn playouts(&mut self, start: &Position, limit: u64) -> Option<Vec<Move>> {
        const LENGTH: usize = 80;
        // Mostly guided, now and then nearly random: the guide finds most
        // helpmates fast, randomness those that need odd-looking moves.
        const NOISE: [u64; 4] = [12, 12, 40, 400];
        let loser_king = start.king_of(!self.winner);
        let winner_pawns = start.pieces(Piece { color: self.winner, role: Role::Pawn });
        while self.used < limit.min(self.limit) {
            self.noise = NOISE[self.round % NOISE.len()];
            // The nearest suitable corner first, then any of them.
            self.target = if self.round < 2 {
                self.corners
                    .into_iter()
                    .min_by_key(|&c| distance(c, loser_king))
                    .unwrap_or(Square::A1)
            } else {
                let n = self.corners.count().max(1);
                let k = (self.random() % u64::from(n)) as usize;
                self.corners.into_iter().nth(k).unwrap_or(Square::A1)
            };
            self.sacrifice = self.round % 3 == 2;
            self.corner_blockers = self.round % 2 == 1;
            // When none of the winner's pawns can move, taking the pawns
            // that block them may be its only way to mate: it hunts in two
            // play-outs of five rather than one.
            self.hunt =
                winner_pawns.any() && (self.round % 5 == 4 || (self.stuck && self.round % 5 == 1));
            self.round += 1;
            let mut pos = start.clone();
            // Every other play-out is long: a composed position may need
            // hundreds of plies of pawns unlocked one by one.
            let length = if self.round.is_multiple_of(2) { 8 * LENGTH } else { LENGTH };
            let mut line = Vec::with_capacity(length);
            for _ in 0..length {
                if !self.spend(limit) {
                    return None;
                }
                let moves = pos.legal_moves();
                if pos.turn() == self.winner
                    && let Some(m) = mating_move(&pos, &moves)
                {
                    line.push(m);
                    return Some(line);
                }
                // Near its corner, the losing king may be one winner's
                // move and one reply away from a mate the guide would not
                // find: look at every such pair, once per position (not in
                // the first play-outs, which find the easy helpmates
                // cheaply).
                if self.used > 20_000
                    && pos.turn() == self.winner
                    && distance(pos.king_of(!self.winner), self.target) <= 1
                    && self.finished.insert(pos.zobrist())
                    && let Some(end) = self.mate_in_two_moves(&pos, &moves, limit)
                {
                    line.extend(end);
                    return Some(line);
                }
                let Some(m) = self.pick(&pos, &moves) else {
                    break;
                };
                pos.play_unchecked(m);
                line.push(m);
                if material_cannot_mate(&pos, self.winner) {
                    break;
                }
            }
        }
        None
    }

    /// The next move of a play-out: the best by [`Search::score`] after a
    /// random tie-break.
    fn pick(&mut self, pos: &Position, moves: &MoveList) -> Option<Move> {
        let mut best = None;
        let mut best_score = i32::MIN;
        for &m in moves {
            let noise = (self.random() % self.noise) as i32;
            let score = self.score(pos, m) + noise;
            if score > best_score {
                best_score = score;
                best = Some(m);
            }
        }
        best
    }

    /// How much a move helps the winner mate: the winner's pieces head for
    /// the losing king, its pawns for promotion; the losing king heads for
    /// the target corner, its pieces gather round it as blockers, and the
    /// loser takes none of the winner's material.
    fn score(&self, pos: &Position, m: Move) -> i32 {
        let us = pos.turn();
        let loser_king = pos.king_of(!self.winner);
        let (from, to) = (m.from(), m.to());
        let role = pos.role_at(from).unwrap_or(Role::Pawn);
        let capture = pos.by_color(!us).contains(to) && m.kind() != MoveKind::Castle;
        if us == self.winner {
            let mut score = match m.kind() {
                MoveKind::Promotion(Role::Queen) => 60,
                MoveKind::Promotion(_) => 10,
                _ => 0,
            };
            score += match role {
                Role::Pawn => 12,
                Role::King => {
                    // Off to take the loser's pawns that block its own,
                    // while there are any; then, as in other play-outs,
                    // close to the losing king, but not next to it: two
                    // squares away.
                    let prey = pos.pieces(Piece { color: !self.winner, role: Role::Pawn });
                    let near = |sq: Square| prey.into_iter().map(|p| distance(sq, p)).min();
                    match (near(from), near(to)) {
                        (Some(a), Some(b)) if self.hunt => 6 * (a - b),
                        _ => {
                            4 * ((distance(from, loser_king) - 2).abs()
                                - (distance(to, loser_king) - 2).abs())
                        }
                    }
                }
                _ => 6 * (distance(from, loser_king) - distance(to, loser_king)),
            };
            if capture {
                score += if self.sacrifice || self.hunt { 30 } else { 3 };
            }
            // A piece next to the losing king with nothing guarding it
            // gets taken (often the king's only move): mates need it
            // guarded.
            if !matches!(role, Role::King | Role::Pawn)
                && attacks::king_attacks(loser_king).contains(to)
                && (pos.attackers_to(to, us, pos.occupied().without(from)).without(from)).is_empty()
            {
                score -= 20;
            }
            score
        } else {
            let target = self.target;
            let mut score = match role {
                Role::King => 6 * (distance(from, target) - distance(to, target)),
                Role::Pawn => match m.kind() {
                    // A promoted piece makes a blocker; when heavy pieces
                    // are given away, a minor one that cannot interpose
                    // as easily.
                    MoveKind::Promotion(Role::Knight | Role::Bishop) => 10,
                    MoveKind::Promotion(_) if self.sacrifice => 0,
                    MoveKind::Promotion(_) => 10,
                    _ => 4,
                },
                // The loser's pieces make good blockers next to their king
                // or the corner; queens and rooks, which would interpose
                // or take the checking piece, may be given away to the
                // winning king instead.
                Role::Queen | Role::Rook if self.sacrifice => {
                    let king = pos.king_of(self.winner);
                    3 * (distance(from, king) - distance(to, king))
                }
                // Next to the corner the king heads for.
                _ if self.corner_blockers => {
                    3 * ((distance(from, target) - 1).abs() - (distance(to, target) - 1).abs())
                }
                _ => 3 * (distance(from, loser_king) - distance(to, loser_king)),
            };
            if capture {
                score -= 40;
            }
            // A piece offered to a pawn of the winner frees that pawn.
            let winner_pawns = pos.pieces(Piece { color: self.winner, role: Role::Pawn });
            if role != Role::King && (attacks::pawn_attacks(!self.winner, to) & winner_pawns).any()
            {
                score += 8;
            }
            score
        }
    }
}

/// A move among `moves` (the legal moves in `pos`) that checkmates.
fn mating_move(pos: &Position, moves: &MoveList) -> Option<Move> {
    let checks = Checks::new(pos);
    moves
        .iter()
        .copied()
        .filter(|&m| checks.given_by(pos, m))
        .find(|&m| !pos.play(m).has_legal_moves())
}

/// Which moves of the side to move check the other king, worked out once
/// for a position: a play-out asks it of every move of every position of
/// the winner's, and most moves are plain moves whose answer is then two
/// bit tests ([`Position::gives_check`] costs about a hundred
/// instructions a move).
struct Checks {
    /// The king in question.
    king: Square,
    /// By role, the squares from which a piece of that role would check it
    /// (none for the king).
    squares: [Bitboard; 6],
    /// The mover's pieces that alone stand between one of its sliders and
    /// the king: moving one off that line uncovers a check.
    discoverers: Bitboard,
}

impl Checks {
    fn new(pos: &Position) -> Checks {
        let us = pos.turn();
        let king = pos.king_of(!us);
        let occupied = pos.occupied();
        let ours = pos.by_color(us);
        let queens = pos.by_role(Role::Queen);
        let (diagonal, straight) =
            (attacks::bishop_attacks(king, occupied), attacks::rook_attacks(king, occupied));
        let mut squares = [Bitboard::EMPTY; 6];
        squares[Role::Pawn.index()] = attacks::pawn_attacks(!us, king);
        squares[Role::Knight.index()] = attacks::knight_attacks(king);
        squares[Role::Bishop.index()] = diagonal;
        squares[Role::Rook.index()] = straight;
        squares[Role::Queen.index()] = diagonal | straight;
        let snipers = ours
            & ((attacks::bishop_rays(king) & (pos.by_role(Role::Bishop) | queens))
                | (attacks::rook_rays(king) & (pos.by_role(Role::Rook) | queens)));
        let mut discoverers = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = attacks::between(sniper, king) & occupied;
            if blockers.more_than_one() {
                continue;
            }
            discoverers |= blockers & ours;
        }
        Checks { king, squares, discoverers }
    }

    /// Whether the legal move `m` checks: as [`Position::gives_check`].
    /// A plain move checks from its destination, or uncovers a check by
    /// leaving the line of a slider (it cannot open its own line: a slider
    /// that moves away from the king along it was checking already). The
    /// rest (castling, en passant, promotion) ask the position.
    fn given_by(&self, pos: &Position, m: Move) -> bool {
        if m.kind() != MoveKind::Normal {
            return pos.gives_check(m);
        }
        let (from, to) = (m.from(), m.to());
        let role = pos.role_at(from).unwrap_or(Role::King);
        self.squares[role.index()].contains(to)
            || (self.discoverers.contains(from) && !attacks::aligned(from, to, self.king))
    }
}

/// A breadth-first walk over every position reachable from a start, which
/// can stop when its share of the budget is spent and resume later.
struct Walker {
    seen: KeySet<(u64, u64)>,
    /// Each position found: its parent's index and the move from it.
    tree: Vec<(u32, Move)>,
    queue: VecDeque<(Position, u32)>,
    floods: FloodCache,
}

impl Walker {
    fn new(start: &Position) -> Walker {
        let mut seen = KeySet::default();
        seen.insert(keys(start));
        let mut queue = VecDeque::new();
        queue.push_back((start.clone(), 0));
        Walker {
            seen,
            tree: vec![(u32::MAX, Move::new(Square::A1, Square::A1, MoveKind::Normal))],
            queue,
            floods: FloodCache::default(),
        }
    }

    /// Walks on until a mate, the end of the positions, or `limit`
    /// positions visited in all. A position is expanded whole (its children
    /// may overshoot `limit` by a few), so that none is lost between turns.
    fn resume(&mut self, search: &mut Search, limit: u64) -> Walk {
        let limit = limit.min(search.limit);
        while search.used < limit {
            let Some((pos, index)) = self.queue.pop_front() else {
                return Walk::Exhausted;
            };
            let winner_moves = pos.turn() == search.winner;
            for m in pos.legal_moves() {
                let next = pos.play(m);
                if !self.seen.insert(keys(&next)) {
                    continue;
                }
                search.used += 1;
                let Ok(child) = u32::try_from(self.tree.len()) else {
                    return Walk::OutOfBudget;
                };
                self.tree.push((index, m));
                if winner_moves && next.is_check() && !next.has_legal_moves() {
                    return Walk::Mate(line_to(&self.tree, child));
                }
                if material_cannot_mate(&next, search.winner)
                    || walled_in(&next, search.winner, &mut self.floods)
                {
                    continue;
                }
                self.queue.push_back((next, child));
            }
        }
        if self.queue.is_empty() { Walk::Exhausted } else { Walk::OutOfBudget }
    }
}

/// The moves from the root of `tree` to `index`.
fn line_to(tree: &[(u32, Move)], mut index: u32) -> Vec<Move> {
    let mut line = Vec::new();
    while index != 0 {
        let (parent, m) = tree[index as usize];
        line.push(m);
        index = parent;
    }
    line.reverse();
    line
}

/// Two independent hashes of what makes a position (placement, side to
/// move, castling rights, a legal en-passant capture), so that a walk
/// takes two positions for one only with negligible probability.
fn keys(pos: &Position) -> (u64, u64) {
    let mut h: u64 = 0x243f_6a88_85a3_08d3;
    let mut mix = |x: u64| {
        h = (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 29;
    };
    for bb in pos.by_role {
        mix(bb.0);
    }
    mix(pos.by_color[0].0);
    mix(pos.castling.0);
    mix(u64::from(pos.turn == Color::White)
        | (pos.legal_ep_square().map_or(64, |s| s.index() as u64) << 1));
    (pos.zobrist(), h)
}

/// King-step distance between two squares.
fn distance(a: Square, b: Square) -> i32 {
    // Squares count from a1 along the ranks: the file in the low 3 bits. A
    // play-out asks this of nearly every move it scores.
    let (a, b) = (a.index() as i32, b.index() as i32);
    let (df, dr) = ((a & 7) - (b & 7), (a >> 3) - (b >> 3));
    df.abs().max(dr.abs())
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

    fn verdict(fen: &str, winner: Color) -> Winnability {
        let p = pos(fen);
        let v = analyse(&p, winner, SearchBudget::FULL);
        if let Winnability::Winnable(line) = &v {
            assert!(replays_to_mate(&p, winner, line), "{fen}: {line:?}");
        }
        v
    }

    /// The check test of the play-outs against the position's own, on every
    /// legal move of the positions of seeded random games from starts rich
    /// in pins, uncovered checks, promotions and en passant.
    #[test]
    fn checks_worked_out_once_agree_with_the_position() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "4k3/8/2P5/1B6/4N3/8/4R3/R3K2B w Q - 0 1",
        ];
        let (mut rng, mut checks, mut uncovered, mut moves_seen) =
            (0x9e37_79b9_7f4a_7c15_u64, 0, 0, 0);
        for start in starts {
            for _ in 0..40 {
                let mut p = pos(start);
                for _ in 0..120 {
                    let moves = p.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let worked_out = Checks::new(&p);
                    for &m in &moves {
                        let expected = p.gives_check(m);
                        assert_eq!(worked_out.given_by(&p, m), expected, "{} {m}", p.fen());
                        checks += usize::from(expected);
                        let role = p.role_at(m.from()).unwrap();
                        uncovered += usize::from(
                            expected
                                && m.kind() == MoveKind::Normal
                                && !worked_out.squares[role.index()].contains(m.to()),
                        );
                        moves_seen += 1;
                    }
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    p.play_unchecked(moves[(rng % moves.len() as u64) as usize]);
                }
            }
        }
        assert!(
            moves_seen > 100_000 && checks > 2_000 && uncovered > 100,
            "{moves_seen} moves, {checks} checks, {uncovered} uncovered"
        );
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
    fn blockers_make_minor_pieces_winnable() {
        assert!(matches!(
            verdict("k7/8/8/8/8/8/8/1N2K1b1 w - - 0 1", Color::White),
            Winnability::Winnable(_)
        ));
        // The loser's own knight on g8 makes Bg7 mate. (From far away, a
        // bishop against a knight is often left UNDETERMINED today.)
        assert!(matches!(
            verdict("5Bnk/8/6K1/8/8/8/8/8 w - - 0 1", Color::White),
            Winnability::Winnable(_)
        ));
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

    #[test]
    fn exhaustive_walk_proves_small_worlds() {
        // Kings behind a wall with a bishop that can only reach its own
        // side: the walk runs out of positions.
        // The kings alone behind a wall with a gap at the edge are kept
        // apart by the pawns' attacks; the walk finds every king walk.
        let fen = "8/8/4k3/p1p1p1p1/P1P1P1P1/8/8/1B2K3 w - - 0 1";
        assert_eq!(verdict(fen, Color::White), Winnability::Unwinnable);
        assert_eq!(verdict(fen, Color::Black), Winnability::Unwinnable);
    }

    #[test]
    fn blocked_pawn_endings_are_proven_alive_cheaply() {
        // Final positions of random games: each side's pawn is blocked by
        // the other's, and the winner's king must take the enemy pawn
        // before its own can promote (White's shortest helpmate here is
        // 19 plies). Play-outs that hunt the pawn and then bring the king
        // back to help the queen find it within a few hundred positions,
        // where the exhaustive walk needed about 64,000.
        let kpk = "8/2k5/7p/7P/8/2K5/8/8 w - - 14 101";
        let p = pos(kpk);
        match analyse(&p, Color::White, SearchBudget { nodes: 1_000 }) {
            Winnability::Winnable(line) => assert!(replays_to_mate(&p, Color::White, &line)),
            v => panic!("{kpk}: {v:?}"),
        }
        // With a bishop for Black: either side mates within 10,000.
        let kbpk = "8/8/7p/2k1b2P/8/8/6K1/8 w - - 11 101";
        let p = pos(kbpk);
        for winner in Color::ALL {
            match analyse(&p, winner, SearchBudget { nodes: 10_000 }) {
                Winnability::Winnable(line) => assert!(replays_to_mate(&p, winner, &line)),
                v => panic!("{kbpk} {winner:?}: {v:?}"),
            }
        }
    }

    #[test]
    fn a_resumed_analysis_reaches_the_same_verdicts() {
        for fen in [
            "8/8/4k3/p1p1p1p1/P1P1P1P1/8/8/1B2K3 w - - 0 1",
            "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1",
            "8/2k5/7p/7P/8/2K5/8/8 w - - 14 101",
            "8/8/7p/2k1b2P/8/8/6K1/8 w - - 11 101",
            "5k2/1bB5/6p1/6P1/8/7p/3K3P/8 w - - 28 101",
            crate::board::fen::STARTING_FEN,
        ] {
            let p = pos(fen);
            for winner in Color::ALL {
                let whole = analyse(&p, winner, SearchBudget::FULL);
                let mut analyser = Analyser::new(&p, winner, SearchBudget::FULL);
                let mut nodes = 1;
                let resumed = loop {
                    match analyser.run(SearchBudget { nodes }) {
                        Winnability::Undetermined if nodes < SearchBudget::FULL.nodes => nodes *= 3,
                        v => break v,
                    }
                };
                match (&whole, &resumed) {
                    (Winnability::Winnable(a), Winnability::Winnable(b)) => {
                        assert!(replays_to_mate(&p, winner, a), "{fen} {winner:?}");
                        assert!(replays_to_mate(&p, winner, b), "{fen} {winner:?}");
                    }
                    _ => assert_eq!(whole, resumed, "{fen} {winner:?}"),
                }
                // A decided analysis keeps its verdict.
                assert_eq!(analyser.run(SearchBudget { nodes: 1 }), resumed);
            }
        }
    }

    #[test]
    fn ordinary_positions_are_winnable() {
        for fen in [
            crate::board::fen::STARTING_FEN,
            "8/8/8/1R4B1/4k1p1/2P5/5PKP/8 b - - 1 45",
            "6k1/6pp/8/1p1N4/8/p6P/5PPK/8 b - - 1 45",
        ] {
            for c in Color::ALL {
                assert!(matches!(verdict(fen, c), Winnability::Winnable(_)), "{fen} {c:?}");
            }
        }
    }
}
