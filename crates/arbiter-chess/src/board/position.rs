//! A chess position and playing moves on it.

use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind};
use crate::board::types::{Color, File, Piece, Rank, Role, Square};
use crate::board::zobrist;

/// Which castling rules a position follows.
///
/// Both keep castling rights as rook squares; they differ in which rights a
/// FEN may give and in how UCI writes castling.
///
/// ```
/// use arbiter_chess::{CastlingMode, Position};
/// let pos = Position::chess960_start(518).unwrap();
/// assert_eq!(pos.castling_mode(), CastlingMode::Chess960);
/// assert_eq!(Position::default().castling_mode(), CastlingMode::Standard);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CastlingMode {
    /// Standard chess: kings on the e-file, castling with the a- and h-file
    /// rooks; UCI writes castling as the king's two-square step (`e1g1`).
    #[default]
    Standard,
    /// Chess960 (FIDE Laws, Guidelines II): king and rooks on any files of
    /// the back rank; UCI writes castling as king takes own rook (`e1h1`).
    Chess960,
}

/// A legal chess position: placement, side to move, castling rights, the
/// en-passant square and the clocks, with the checkers and pinned pieces of
/// the side to move kept current.
///
/// Castling rights are stored as the squares of the rooks that may still
/// castle, and a castling move as "king takes own rook", so Chess960 fits the
/// same representation.
///
/// A `Position` only ever holds a legal position: it is built by parsing a
/// validated FEN (see [`FenError`](crate::FenError) for what is refused)
/// or by playing legal moves.
///
/// ```
/// use arbiter_chess::{Position, Square};
/// let pos = Position::default();
/// assert_eq!(pos.legal_moves().len(), 20);
/// let e4 = pos.legal_moves().into_iter().find(|m| m.to() == Square::E4).unwrap();
/// let after = pos.play(e4);
/// assert_eq!(after.to_string(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub(crate) by_role: [Bitboard; 6],
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) turn: Color,
    pub(crate) castling: Bitboard,
    pub(crate) ep_square: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    /// Standard chess or Chess960: fixed for a game, set when the start
    /// position is read.
    pub(crate) mode: CastlingMode,
    pub(crate) checkers: Bitboard,
    pub(crate) pinned: Bitboard,
    /// Hash of placement, castling rights and side to move; the en-passant
    /// part is added by [`Position::zobrist`] only when a capture is legal.
    pub(crate) hash: u64,
}

impl Default for Position {
    /// The standard starting position.
    fn default() -> Position {
        const BACK: [Role; 8] = [
            Role::Rook,
            Role::Knight,
            Role::Bishop,
            Role::Queen,
            Role::King,
            Role::Bishop,
            Role::Knight,
            Role::Rook,
        ];
        let mut pos = Position::empty();
        for color in Color::ALL {
            for file in File::ALL {
                let back = Square::from_coords(file, color.back_rank());
                let pawn = Square::from_coords(file, Rank::Second.relative_to(color));
                pos.put(Piece { color, role: BACK[file.index() as usize] }, back);
                pos.put(Piece { color, role: Role::Pawn }, pawn);
            }
        }
        pos.castling = Bitboard::from(Square::A1) | Square::H1 | Square::A8 | Square::H8;
        pos.finish_setup();
        pos
    }
}

impl Position {
    /// An empty board, white to move, for setting up a position piece by piece.
    pub(crate) fn empty() -> Position {
        Position {
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            turn: Color::White,
            castling: Bitboard::EMPTY,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
            mode: CastlingMode::Standard,
            checkers: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            hash: 0,
        }
    }

    /// Computes what is derived from the placement and rights: the hash and
    /// the check information.
    pub(crate) fn finish_setup(&mut self) {
        let mut hash = zobrist::turn_key(self.turn);
        for sq in self.occupied() {
            if let Some(piece) = self.piece_at(sq) {
                hash ^= zobrist::piece_key(piece, sq);
            }
        }
        for rook in self.castling {
            hash ^= zobrist::castling_key(rook);
        }
        self.hash = hash;
        self.update_check_info();
    }

    /// Chess960 start position number `number` (Scharnagl's numbering,
    /// 0–959; 518 is the standard array), with all four castling rights;
    /// `None` for a number over 959.
    ///
    /// ```
    /// use arbiter_chess::Position;
    /// let pos = Position::chess960_start(0).unwrap();
    /// assert_eq!(pos.to_string(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
    /// assert_eq!(pos.shredder_fen().as_str(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1");
    /// assert!(Position::chess960_start(960).is_none());
    /// ```
    pub fn chess960_start(number: u32) -> Option<Position> {
        const KNIGHTS: [(usize, usize); 10] =
            [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
        if number >= 960 {
            return None;
        }
        let mut back: [Option<Role>; 8] = [None; 8];
        let mut n = number as usize;
        // Light-squared bishop on b, d, f or h; dark-squared on a, c, e or g.
        back[2 * (n % 4) + 1] = Some(Role::Bishop);
        n /= 4;
        back[2 * (n % 4)] = Some(Role::Bishop);
        n /= 4;
        let empty = |back: &[Option<Role>; 8]| -> Vec<usize> {
            (0..8).filter(|&i| back[i].is_none()).collect()
        };
        back[empty(&back)[n % 6]] = Some(Role::Queen);
        n /= 6;
        let (a, b) = KNIGHTS[n];
        let free = empty(&back);
        back[free[a]] = Some(Role::Knight);
        back[free[b]] = Some(Role::Knight);
        // The three squares left take rook, king, rook in that order.
        for (i, role) in empty(&back).into_iter().zip([Role::Rook, Role::King, Role::Rook]) {
            back[i] = Some(role);
        }
        let mut pos = Position::empty();
        pos.mode = CastlingMode::Chess960;
        for color in Color::ALL {
            for file in File::ALL {
                let role = back[file.index() as usize].unwrap_or(Role::Pawn);
                let sq = Square::from_coords(file, color.back_rank());
                pos.put(Piece { color, role }, sq);
                if role == Role::Rook {
                    pos.castling |= sq;
                }
                let pawn = Square::from_coords(file, Rank::Second.relative_to(color));
                pos.put(Piece { color, role: Role::Pawn }, pawn);
            }
        }
        pos.finish_setup();
        Some(pos)
    }

    /// Whether this is a standard or a Chess960 position.
    #[inline]
    pub fn castling_mode(&self) -> CastlingMode {
        self.mode
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Squares of the rooks that still have castling rights.
    #[inline]
    pub fn castling_rights(&self) -> Bitboard {
        self.castling
    }

    /// The en-passant square as FEN records it: the square a pawn skipped on
    /// the last move by a double step, whether or not a capture is possible.
    #[inline]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// Half-moves since the last capture or pawn move.
    #[inline]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmoves
    }

    /// The move number, starting at 1 and incremented after black's move.
    #[inline]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmoves
    }

    /// Pieces that give check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers.any()
    }

    /// Pieces of the side to move pinned to their own king.
    #[inline]
    pub fn pinned(&self) -> Bitboard {
        self.pinned
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// Squares occupied by `color`.
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Squares occupied by pieces of `role`, either colour.
    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// Squares occupied by `piece`.
    #[inline]
    pub fn pieces(&self, piece: Piece) -> Bitboard {
        self.by_role(piece.role) & self.by_color(piece.color)
    }

    /// The square of `color`'s king.
    #[inline]
    pub fn king_of(&self, color: Color) -> Square {
        // A Position always has one king of each colour; A1 is never reached.
        (self.by_role(Role::King) & self.by_color(color)).first().unwrap_or(Square::A1)
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = if self.by_color[0].contains(sq) {
            Color::White
        } else if self.by_color[1].contains(sq) {
            Color::Black
        } else {
            return None;
        };
        let role = self.role_at(sq)?;
        Some(Piece { color, role })
    }

    /// The role of the piece on `sq`, if any.
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        Role::ALL.into_iter().find(|role| self.by_role[role.index()].contains(sq))
    }

    /// Each of `moves` (a list generated here) with the role of the piece
    /// that makes it: the moves of one piece come together in such a list,
    /// so its role is looked up once.
    #[inline]
    pub(crate) fn with_roles<'a>(
        &'a self,
        moves: &'a [Move],
    ) -> impl Iterator<Item = (Move, Role)> + 'a {
        let mut mover = (None, Role::Pawn);
        moves.iter().map(move |&m| {
            let from = m.from();
            if mover.0 != Some(from) {
                mover = (Some(from), self.role_at(from).unwrap_or(Role::Pawn));
            }
            (m, mover.1)
        })
    }

    /// Pieces of `attacker` that attack `sq`, were the board occupied as `occupied`.
    #[inline]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let queens = self.by_role(Role::Queen);
        ((attacks::rook_attacks(sq, occupied) & (self.by_role(Role::Rook) | queens))
            | (attacks::bishop_attacks(sq, occupied) & (self.by_role(Role::Bishop) | queens))
            | (attacks::knight_attacks(sq) & self.by_role(Role::Knight))
            | (attacks::king_attacks(sq) & self.by_role(Role::King))
            | (attacks::pawn_attacks(!attacker, sq) & self.by_role(Role::Pawn)))
            & self.by_color(attacker)
    }

    /// Whether `attacker` attacks `sq`, were the board occupied as `occupied`.
    #[inline]
    pub(crate) fn is_attacked(&self, sq: Square, attacker: Color, occupied: Bitboard) -> bool {
        let them = self.by_color(attacker);
        let queens = self.by_role(Role::Queen);
        let lines = (attacks::rook_rays(sq) & (self.by_role(Role::Rook) | queens))
            | (attacks::bishop_rays(sq) & (self.by_role(Role::Bishop) | queens));
        (attacks::knight_attacks(sq) & self.by_role(Role::Knight) & them).any()
            || (attacks::pawn_attacks(!attacker, sq) & self.by_role(Role::Pawn) & them).any()
            || (attacks::king_attacks(sq) & self.by_role(Role::King) & them).any()
            || attacks::unblocked(lines & them, sq, occupied).any()
    }

    /// Whether the legal move `m` gives check, found without playing it: the
    /// enemy king is attacked by the piece that lands (a pawn or knight
    /// from its square, a slider with the others) or by one of our sliders
    /// that the move uncovers, the squares it leaves (and en passant's
    /// captured pawn) being empty afterwards. Castling checks with the rook.
    ///
    /// ```
    /// use arbiter_chess::{Position, UciMove};
    /// let pos: Position = "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1".parse().unwrap();
    /// let castle = "e1c1".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
    /// assert!(!pos.gives_check(castle));
    /// let rook = "a1a8".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
    /// assert!(pos.gives_check(rook));
    /// ```
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.turn;
        let king = self.king_of(!us);
        let (from, to) = (m.from(), m.to());
        let ours = self.by_color(us).without(from);
        let queens = self.by_role(Role::Queen);
        let mut rooks = (self.by_role(Role::Rook) | queens) & ours;
        let mut bishops = (self.by_role(Role::Bishop) | queens) & ours;
        let mut occupied = self.occupied().without(from);
        let (landing, placed) = match m.kind() {
            MoveKind::Castle => {
                let (king_to, rook_to) = castling_squares(us, from, to);
                occupied = occupied.without(to).with(king_to);
                rooks = rooks.without(to);
                (rook_to, Role::Rook)
            }
            MoveKind::EnPassant => {
                occupied = occupied.without(Square::from_coords(to.file(), from.rank()));
                (to, Role::Pawn)
            }
            MoveKind::Promotion(role) => (to, role),
            MoveKind::Normal => (to, self.role_at(from).unwrap_or(Role::Pawn)),
        };
        occupied = occupied.with(landing);
        let direct = match placed {
            Role::Pawn => attacks::pawn_attacks(us, landing).contains(king),
            Role::Knight => attacks::knight_attacks(landing).contains(king),
            Role::King => false,
            Role::Bishop | Role::Rook | Role::Queen => {
                // A slider that lands checks along with the uncovered ones.
                if placed != Role::Bishop {
                    rooks = rooks.with(landing);
                }
                if placed != Role::Rook {
                    bishops = bishops.with(landing);
                }
                false
            }
        };
        // Only sliders on a line with the king can check, through the empty
        // squares: most moves have none to look at.
        rooks &= attacks::rook_rays(king);
        bishops &= attacks::bishop_rays(king);
        direct
            || (rooks.any() && (attacks::rook_attacks(king, occupied) & rooks).any())
            || (bishops.any() && (attacks::bishop_attacks(king, occupied) & bishops).any())
    }

    /// Zobrist hash of what makes positions the same for repetition:
    /// placement, side to move, castling rights, and the en-passant file only
    /// when an en-passant capture is legal.
    ///
    /// ```
    /// use arbiter_chess::Position;
    /// // After 1. e4 no black pawn can capture on e3: same hash as without it.
    /// let a: Position = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".parse().unwrap();
    /// let b: Position = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".parse().unwrap();
    /// assert_eq!(a.zobrist(), b.zobrist());
    /// ```
    #[inline]
    pub fn zobrist(&self) -> u64 {
        match self.legal_ep_square() {
            Some(ep) => self.hash ^ zobrist::en_passant_key(ep),
            None => self.hash,
        }
    }

    /// The en-passant square, only if an en-passant capture is legal.
    #[inline]
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        self.ep_capturers().any().then_some(ep)
    }

    /// Pawns of the side to move that can legally capture en passant.
    pub(crate) fn ep_capturers(&self) -> Bitboard {
        let Some(ep) = self.ep_square else {
            return Bitboard::EMPTY;
        };
        let us = self.turn;
        let them = !us;
        let candidates =
            attacks::pawn_attacks(them, ep) & self.pieces(Piece { color: us, role: Role::Pawn });
        if candidates.is_empty() {
            return Bitboard::EMPTY;
        }
        let captured = Square::from_coords(ep.file(), Rank::Fifth.relative_to(us));
        let king = self.king_of(us);
        let theirs = self.by_color(them).without(captured);
        let queens = self.by_role(Role::Queen);
        let rooks = (self.by_role(Role::Rook) | queens) & theirs;
        let bishops = (self.by_role(Role::Bishop) | queens) & theirs;
        // Checkers other than the captured pawn stay unless the capture blocks them.
        let other_checkers = self.checkers.without(captured);
        let mut legal = Bitboard::EMPTY;
        for from in candidates {
            let occupied = (self.occupied() ^ from ^ captured) | ep;
            let exposed = (attacks::rook_attacks(king, occupied) & rooks)
                | (attacks::bishop_attacks(king, occupied) & bishops)
                | (other_checkers
                    & !(self.by_role(Role::Rook) | self.by_role(Role::Bishop) | queens));
            if exposed.is_empty() {
                legal |= from;
            }
        }
        legal
    }

    #[inline]
    pub(crate) fn put(&mut self, piece: Piece, sq: Square) {
        self.by_role[piece.role.index()] |= sq;
        self.by_color[piece.color.index()] |= sq;
        self.hash ^= zobrist::piece_key(piece, sq);
    }

    #[inline]
    pub(crate) fn remove(&mut self, piece: Piece, sq: Square) {
        self.by_role[piece.role.index()] ^= sq;
        self.by_color[piece.color.index()] ^= sq;
        self.hash ^= zobrist::piece_key(piece, sq);
    }

    /// Recomputes the checkers of and the pins against the side to move:
    /// enemy sliders on a line with the king check it when nothing stands
    /// between and pin the one piece of ours that does.
    #[inline]
    pub(crate) fn update_check_info(&mut self) {
        let us = self.turn;
        let them = !us;
        let king = self.king_of(us);
        let occupied = self.occupied();
        let theirs = self.by_color(them);
        let queens = self.by_role(Role::Queen);
        let snipers = ((attacks::rook_rays(king) & (self.by_role(Role::Rook) | queens))
            | (attacks::bishop_rays(king) & (self.by_role(Role::Bishop) | queens)))
            & theirs;
        let mut checkers = ((attacks::knight_attacks(king) & self.by_role(Role::Knight))
            | (attacks::pawn_attacks(us, king) & self.by_role(Role::Pawn)))
            & theirs;
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = attacks::between(king, sniper) & occupied;
            if blockers.is_empty() {
                checkers |= sniper;
            } else if !blockers.more_than_one() {
                pinned |= blockers & self.by_color(us);
            }
        }
        self.checkers = checkers;
        self.pinned = pinned;
    }

    /// The position after `m`, which must be legal here (as from
    /// [`Position::legal_moves`] or a parser that checked it).
    ///
    /// ```
    /// use arbiter_chess::Position;
    /// let pos = Position::default();
    /// let m = pos.legal_moves()[0];
    /// assert_eq!(pos.play(m).turn(), !pos.turn());
    /// ```
    #[inline]
    #[must_use]
    pub fn play(&self, m: Move) -> Position {
        let mut next = self.clone();
        next.play_unchecked(m);
        next
    }

    /// Plays `m` in place. `m` must be legal here; an illegal move leaves an
    /// unspecified (but memory-safe) position.
    #[inline(always)]
    pub fn play_unchecked(&mut self, m: Move) {
        let Some(role) = self.role_at(m.from()) else {
            debug_assert!(false, "no piece on {}", m.from());
            return;
        };
        self.play_piece_unchecked(m, role);
    }

    /// Plays `m`, a legal move of a piece of `role`, in place: for callers
    /// that found the move by its piece and need not look it up again.
    #[inline(always)]
    pub(crate) fn play_piece_unchecked(&mut self, m: Move, role: Role) {
        debug_assert_eq!(self.role_at(m.from()), Some(role));
        let us = self.turn;
        let them = !us;
        let (from, to) = (m.from(), m.to());
        self.ep_square = None;
        self.halfmoves = self.halfmoves.saturating_add(1);
        let had_rights = self.castling.any();
        match m.kind() {
            MoveKind::Castle => {
                let (king_to, rook_to) = castling_squares(us, from, to);
                self.remove(Piece { color: us, role: Role::King }, from);
                self.remove(Piece { color: us, role: Role::Rook }, to);
                self.put(Piece { color: us, role: Role::King }, king_to);
                self.put(Piece { color: us, role: Role::Rook }, rook_to);
            }
            MoveKind::EnPassant => {
                let captured = Square::from_coords(to.file(), from.rank());
                self.remove(Piece { color: them, role: Role::Pawn }, captured);
                self.remove(Piece { color: us, role: Role::Pawn }, from);
                self.put(Piece { color: us, role: Role::Pawn }, to);
                self.halfmoves = 0;
            }
            MoveKind::Normal | MoveKind::Promotion(_) => {
                if self.by_color(them).contains(to)
                    && let Some(captured) = self.role_at(to)
                {
                    self.remove(Piece { color: them, role: captured }, to);
                    self.halfmoves = 0;
                }
                self.remove(Piece { color: us, role }, from);
                let placed = match m.kind() {
                    MoveKind::Promotion(promoted) => promoted,
                    _ => role,
                };
                self.put(Piece { color: us, role: placed }, to);
                if role == Role::Pawn {
                    self.halfmoves = 0;
                    if from.index() ^ to.index() == 16 {
                        self.ep_square = Square::new(((from.index() + to.index()) / 2) as u32);
                    }
                }
            }
        }
        if had_rights {
            let mut lost = Bitboard::from(from) | to;
            if role == Role::King {
                lost |= Bitboard::from_rank(us.back_rank());
            }
            self.discard_castling(lost);
        }
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = them;
        self.hash ^= zobrist::turn_key(Color::Black);
        self.update_check_info();
    }
}

impl Position {
    /// Takes away the castling rights of the rooks on `squares`, if they
    /// have any.
    #[inline(always)]
    pub(crate) fn discard_castling(&mut self, squares: Bitboard) {
        let lost = self.castling & squares;
        for rook in lost {
            self.hash ^= zobrist::castling_key(rook);
        }
        self.castling = self.castling - lost;
    }

    /// Takes whatever piece stands on `sq` off the board.
    #[inline]
    pub(crate) fn discard_piece(&mut self, sq: Square) {
        if let Some(piece) = self.piece_at(sq) {
            self.remove(piece, sq);
        }
    }

    /// Puts `piece` on the empty square `to` as the side to move's move
    /// (a crazyhouse drop): the turn passes, the en-passant square goes, and
    /// the half-move clock restarts for a pawn.
    pub(crate) fn drop_unchecked(&mut self, piece: Piece, to: Square) {
        self.put(piece, to);
        self.ep_square = None;
        self.halfmoves =
            if piece.role == Role::Pawn { 0 } else { self.halfmoves.saturating_add(1) };
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !self.turn;
        self.hash ^= zobrist::turn_key(Color::Black);
        self.update_check_info();
    }
}

/// Where king and rook land when `color`'s king on `king` castles with the
/// rook on `rook`: the g- and f-files towards the h-side, else c and d.
#[inline]
pub(crate) fn castling_squares(color: Color, king: Square, rook: Square) -> (Square, Square) {
    let rank = color.back_rank();
    if rook > king {
        (Square::from_coords(File::G, rank), Square::from_coords(File::F, rank))
    } else {
        (Square::from_coords(File::C, rank), Square::from_coords(File::D, rank))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fen(s: &str) -> Position {
        s.parse().unwrap()
    }

    #[test]
    fn start_position_has_no_checks_or_pins() {
        let pos = Position::default();
        assert!(!pos.is_check());
        assert!(pos.pinned().is_empty());
        assert_eq!(pos.occupied().count(), 32);
        assert_eq!(pos.king_of(Color::Black), Square::E8);
    }

    #[test]
    fn pins_and_checkers_are_found() {
        // The e-file bishop is pinned by the rook; the knight gives check.
        let pos = fen("4r1k1/8/8/8/8/3n4/4B3/4K3 w - - 0 1");
        assert_eq!(pos.pinned(), Square::E2.into());
        assert_eq!(pos.checkers(), Square::D3.into());
    }

    #[test]
    fn incremental_hash_matches_a_fresh_one() {
        let mut pos = Position::default();
        for _ in 0..60 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[(pos.hash as usize) % moves.len()];
            pos = pos.play(m);
            let fresh: Position = pos.to_string().parse().unwrap();
            assert_eq!(pos.zobrist(), fresh.zobrist(), "{pos}");
        }
    }

    #[test]
    fn ep_square_counts_in_the_hash_only_when_capturable() {
        let capturable = fen("4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 2");
        let plain = fen("4k3/8/8/3Pp3/8/8/8/4K3 w - - 0 2");
        assert_ne!(capturable.zobrist(), plain.zobrist());
        assert_eq!(capturable.legal_ep_square(), Some(Square::E6));
        // A horizontal pin through both pawns makes the capture illegal.
        let pinned = fen("8/8/8/K2Pp2r/8/8/8/4k3 w - e6 0 2");
        assert_eq!(pinned.legal_ep_square(), None);
    }

    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        // Discovered checks (by a castling king, en passant, a promotion
        // leaving the line), castling into check with the rook, promotions
        // to each role, and random games from the perft positions.
        let mut positions: Vec<Position> = [
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "r3k3/8/8/8/8/8/8/4K3 b q - 0 1",
            "8/8/8/K2Pp2k/8/8/8/8 w - e6 0 2",
            "7k/8/8/3Pp3/8/8/8/B3K3 w - e6 0 2",
            "1r2k3/2P5/8/8/8/8/8/1R2K3 w - - 0 1",
            "3qk3/2P1P3/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/3p4/1R4K1 b - - 0 1",
            "8/8/1k6/8/3N4/8/8/R3K2B w Q - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        ]
        .iter()
        .map(|f| fen(f))
        .collect();
        for start in positions.clone() {
            let mut pos = start;
            for _ in 0..80 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos = pos.play(moves[(pos.hash as usize) % moves.len()]);
                positions.push(pos.clone());
            }
        }
        let mut checks = 0;
        for pos in &positions {
            for m in pos.legal_moves() {
                let check = pos.play(m).is_check();
                assert_eq!(pos.gives_check(m), check, "{m} in {pos}");
                checks += usize::from(check);
            }
        }
        assert!(checks > 100, "only {checks} checking moves seen");
    }

    #[test]
    fn castling_rights_go_with_king_and_rook_moves_and_captures() {
        let pos = fen("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1");
        let bxh1 = pos.legal_moves().into_iter().find(|m| m.to() == Square::H1).unwrap();
        assert_eq!(pos.play(bxh1).to_string(), "r3k2r/8/8/8/8/8/8/R3K2b w Qkq - 0 2");
    }
}
