//! A position of a variant, its legal moves (drops included) and playing
//! them.

use std::fmt;

use crate::board::attacks;
use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind};
use crate::board::position::{CastlingMode, Position, castling_squares};
use crate::board::types::{Color, Piece, Rank, Role, Square};
use crate::board::zobrist;
use crate::notation::uci::UciMove;
use crate::rules::variant::Variant;

/// The pieces a crazyhouse player holds in hand, by role (pawn to queen).
///
/// ```
/// use arbiter_chess::{Pocket, Role};
/// let pocket = Pocket::default();
/// assert_eq!(pocket.count(Role::Knight), 0);
/// assert!(pocket.is_empty());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pocket([u8; 5]);

impl Pocket {
    /// The roles a pocket holds, in FEN order (queen first).
    pub(crate) const ROLES: [Role; 5] =
        [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];

    /// How many pieces of `role` are in the pocket (never a king).
    pub fn count(&self, role: Role) -> u8 {
        match role {
            Role::King => 0,
            _ => self.0[role.index()],
        }
    }

    /// How many pieces in all.
    pub fn total(&self) -> u32 {
        self.0.iter().map(|&n| u32::from(n)).sum()
    }

    /// Whether the pocket is empty.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Adds a piece of `role` (not a king).
    pub(crate) fn add(&mut self, role: Role) {
        if role != Role::King {
            self.0[role.index()] = self.0[role.index()].saturating_add(1);
        }
    }

    /// Takes a piece of `role` out.
    fn take(&mut self, role: Role) {
        if role != Role::King {
            self.0[role.index()] = self.0[role.index()].saturating_sub(1);
        }
    }
}

/// A move in a variant: a move on the board, or a crazyhouse drop.
///
/// ```
/// use arbiter_chess::{Role, Square, VariantMove};
/// let drop = VariantMove::Drop { role: Role::Knight, to: Square::F3 };
/// assert_eq!(drop.to_string(), "N@f3");
/// assert_eq!(drop.to(), Square::F3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VariantMove {
    /// A move of a piece on the board, as in standard chess (in antichess
    /// a pawn may also promote to a king).
    Board(Move),
    /// A piece from the pocket put on an empty square.
    Drop { role: Role, to: Square },
}

impl VariantMove {
    /// The target square (the castling rook's, for castling).
    pub fn to(self) -> Square {
        match self {
            VariantMove::Board(m) => m.to(),
            VariantMove::Drop { to, .. } => to,
        }
    }

    /// The square the piece leaves, `None` for a drop.
    pub fn from(self) -> Option<Square> {
        match self {
            VariantMove::Board(m) => Some(m.from()),
            VariantMove::Drop { .. } => None,
        }
    }

    /// UCI as lichess writes it under `mode`'s castling convention: `e2e4`,
    /// `e7e8q`, `N@f3`, `P@e4`.
    pub fn uci(self, mode: CastlingMode) -> UciMove {
        match self {
            VariantMove::Board(m) => UciMove::from_move_in(m, mode),
            VariantMove::Drop { role, to } => UciMove::Put { role, to },
        }
    }
}

impl fmt::Display for VariantMove {
    /// UCI, castling as the king's two-square step.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.uci(CastlingMode::Standard), f)
    }
}

/// A position of one of lichess's [`Variant`]s: placement, side to move,
/// castling rights, en-passant square and clocks as in chess, plus the
/// pockets and promoted marks of crazyhouse and the remaining checks of
/// three-check.
///
/// Built by reading a variant FEN ([`VariantPosition::from_fen`]) or from a
/// variant's start ([`VariantPosition::new`]), and changed only by playing
/// legal moves.
///
/// ```
/// use arbiter_chess::{Variant, VariantPosition};
/// let pos = VariantPosition::new(Variant::Horde);
/// assert_eq!(pos.legal_moves().len(), 8);
/// let pos = VariantPosition::new(Variant::RacingKings);
/// assert_eq!(pos.legal_moves().len(), 21);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantPosition {
    pub(crate) variant: Variant,
    /// The placement and the chess fields. Its check information holds only
    /// where the variant has chess's checks and the side to move has one
    /// king; the code here reads it nowhere else.
    pub(crate) board: Position,
    /// Crazyhouse: pieces that were pawns (they go back to a pocket as pawns).
    pub(crate) promoted: Bitboard,
    /// Crazyhouse: the pieces in hand, by colour.
    pub(crate) pockets: [Pocket; 2],
    /// Three-check: the checks each colour has still to give, 0 to 3.
    pub(crate) remaining_checks: [u8; 2],
}

impl VariantPosition {
    /// The starting position of `variant`.
    pub fn new(variant: Variant) -> VariantPosition {
        // The start FENs are constants that the tests read back.
        VariantPosition::from_fen(variant.starting_fen(), variant, CastlingMode::Standard)
            .unwrap_or_else(|_| unreachable!("the start of {variant} is a valid position"))
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Whether castling follows standard chess or Chess960 rules.
    pub fn castling_mode(&self) -> CastlingMode {
        self.board.mode
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.board.turn
    }

    /// The board: the placement and chess's fields, without the pockets
    /// and the checks. Its check information is chess's, which the
    /// variant may not share.
    pub fn board(&self) -> &Position {
        &self.board
    }

    /// Squares occupied by `color`.
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.board.by_color(color)
    }

    /// Squares occupied by pieces of `role`, either colour.
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.board.by_role(role)
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board.piece_at(sq)
    }

    /// Crazyhouse's promoted pieces (empty in the other variants).
    pub fn promoted(&self) -> Bitboard {
        self.promoted
    }

    /// `color`'s pocket (empty outside crazyhouse).
    pub fn pocket(&self, color: Color) -> Pocket {
        self.pockets[color.index()]
    }

    /// Three-check: the checks `color` has still to give to win (3 in the
    /// other variants).
    pub fn remaining_checks(&self, color: Color) -> u8 {
        self.remaining_checks[color.index()]
    }

    /// Half-moves since the last capture or pawn move (or pawn drop).
    pub fn halfmove_clock(&self) -> u32 {
        self.board.halfmoves
    }

    /// The move number, starting at 1 and incremented after black's move.
    pub fn fullmove_number(&self) -> u32 {
        self.board.fullmoves
    }

    /// The king of `color`, if it has exactly one.
    pub fn king_of(&self, color: Color) -> Option<Square> {
        self.board.pieces(Piece { color, role: Role::King }).single_square()
    }

    /// Pieces that give check to the side to move, as the variant counts
    /// checks: none in antichess and for a side without a king; in atomic
    /// none while the kings touch.
    ///
    /// ```
    /// use arbiter_chess::{CastlingMode, Variant, VariantPosition};
    /// // The rook attacks the king, but the kings touch.
    /// let pos = VariantPosition::from_fen("8/8/8/8/8/8/1k6/rK6 w - - 0 1", Variant::Atomic,
    ///     CastlingMode::Standard).unwrap();
    /// assert!(pos.checkers().is_empty());
    /// ```
    pub fn checkers(&self) -> Bitboard {
        let us = self.turn();
        match self.variant {
            Variant::Antichess => Bitboard::EMPTY,
            Variant::Atomic => self.atomic_attackers_of_king(us),
            Variant::Horde if self.king_of(us).is_none() => Bitboard::EMPTY,
            _ => self.board.checkers,
        }
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Atomic: the enemy pieces attacking `color`'s king, none if either
    /// king is gone or the kings touch (a king cannot capture, and taking
    /// the other king would explode one's own).
    pub(crate) fn atomic_attackers_of_king(&self, color: Color) -> Bitboard {
        match (self.king_of(color), self.king_of(!color)) {
            (Some(king), Some(theirs)) if !attacks::king_attacks(king).contains(theirs) => {
                self.board.attackers_to(king, !color, self.board.occupied())
            }
            _ => Bitboard::EMPTY,
        }
    }

    /// Atomic: whether `attacker` attacks `sq` in the sense that matters for
    /// a king standing there, the board occupied as `occupied`.
    fn atomic_attacked(&self, sq: Square, attacker: Color, occupied: Bitboard) -> bool {
        let their_king = self.board.pieces(Piece { color: attacker, role: Role::King });
        their_king.any()
            && (attacks::king_attacks(sq) & their_king).is_empty()
            && self.board.attackers_to(sq, attacker, occupied).any()
    }

    /// Every legal move; none once the variant has ended the game.
    ///
    /// ```
    /// use arbiter_chess::{CastlingMode, Variant, VariantPosition};
    /// // Antichess: the capture is compulsory.
    /// let pos = VariantPosition::from_fen("8/8/8/3p4/4P3/8/8/8 w - - 0 1", Variant::Antichess,
    ///     CastlingMode::Standard).unwrap();
    /// let moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    /// assert_eq!(moves, ["e4d5"]);
    /// ```
    pub fn legal_moves(&self) -> Vec<VariantMove> {
        let mut moves = Vec::new();
        if self.is_variant_end() {
            return moves;
        }
        let board = |moves: &mut Vec<VariantMove>, list: &[Move]| {
            moves.extend(list.iter().map(|&m| VariantMove::Board(m)));
        };
        let us = self.turn();
        match self.variant {
            Variant::KingOfTheHill | Variant::ThreeCheck => {
                board(&mut moves, &self.board.legal_moves());
            }
            Variant::RacingKings => {
                let list = self.board.legal_moves();
                moves.extend(
                    list.iter()
                        .filter(|&&m| !self.board.gives_check(m))
                        .map(|&m| VariantMove::Board(m)),
                );
            }
            Variant::Crazyhouse => {
                board(&mut moves, &self.board.legal_moves());
                self.push_drops(&mut moves);
            }
            Variant::Horde if self.king_of(us).is_some() => {
                board(&mut moves, &self.board.legal_moves());
            }
            Variant::Horde => {
                let mut list = Vec::new();
                self.pseudo_legal(!self.board.occupied(), self.board.by_color(!us), &mut list);
                board(&mut moves, &list);
            }
            Variant::Antichess => {
                let mut list = Vec::new();
                self.pseudo_legal(Bitboard::EMPTY, self.board.by_color(!us), &mut list);
                if list.is_empty() {
                    self.pseudo_legal(!self.board.occupied(), Bitboard::EMPTY, &mut list);
                }
                board(&mut moves, &list);
            }
            Variant::Atomic => {
                let mut list = Vec::new();
                self.pseudo_legal(!self.board.occupied(), self.board.by_color(!us), &mut list);
                self.push_atomic_castling(&mut list);
                list.retain(|&m| {
                    let mut after = self.clone();
                    after.play_board(m);
                    after.king_of(us).is_some()
                        && (after.king_of(!us).is_none()
                            || after.atomic_attackers_of_king(us).is_empty())
                });
                board(&mut moves, &list);
            }
        }
        moves
    }

    /// The board moves the pieces could make by the variant's way of
    /// moving, before its filter (checks, compulsory captures, explosions):
    /// for naming why a move is refused.
    pub(super) fn unfiltered_moves(&self) -> Vec<Move> {
        let mut list = Vec::new();
        let us = self.turn();
        self.pseudo_legal(!self.board.occupied(), self.board.by_color(!us), &mut list);
        if self.variant == Variant::Atomic {
            self.push_atomic_castling(&mut list);
        }
        list
    }

    /// Whether the side to move has a legal move: where the variant's
    /// board moves are chess's, found without listing them all.
    pub fn has_legal_moves(&self) -> bool {
        if self.is_variant_end() {
            return false;
        }
        let us = self.turn();
        match self.variant {
            Variant::KingOfTheHill | Variant::ThreeCheck => self.board.has_legal_moves(),
            Variant::Horde if self.king_of(us).is_some() => self.board.has_legal_moves(),
            Variant::Crazyhouse => {
                self.board.has_legal_moves() || {
                    let mut drops = Vec::new();
                    self.push_drops(&mut drops);
                    !drops.is_empty()
                }
            }
            _ => !self.legal_moves().is_empty(),
        }
    }

    /// Whether `m` is legal here.
    pub fn is_legal(&self, m: VariantMove) -> bool {
        self.legal_moves().contains(&m)
    }

    /// Crazyhouse drops: any empty square, or when in check from a single
    /// slider the squares between it and the king; pawns not on the first
    /// or last rank.
    fn push_drops(&self, moves: &mut Vec<VariantMove>) {
        let us = self.turn();
        let pocket = self.pockets[us.index()];
        if pocket.is_empty() {
            return;
        }
        let checkers = self.board.checkers;
        let squares = match (checkers.single_square(), self.king_of(us)) {
            _ if checkers.is_empty() => !self.board.occupied(),
            (Some(checker), Some(king)) => attacks::between(king, checker),
            _ => Bitboard::EMPTY,
        };
        for role in [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            if pocket.count(role) == 0 {
                continue;
            }
            let targets = if role == Role::Pawn { squares - Bitboard::BACK_RANKS } else { squares };
            moves.extend(targets.into_iter().map(|to| VariantMove::Drop { role, to }));
        }
    }

    /// Moves of the side to move by how the pieces move, ignoring checks:
    /// onto `quiet` (empty squares) and `captures` (enemy pieces; en passant
    /// counts as a capture). Kings capture only outside atomic; pawns
    /// double-step from the first and second ranks (horde) and promote to a
    /// king as well in antichess. No castling.
    fn pseudo_legal(&self, quiet: Bitboard, captures: Bitboard, moves: &mut Vec<Move>) {
        let pos = &self.board;
        let us = pos.turn;
        let ours = pos.by_color(us);
        let occupied = pos.occupied();
        let target = quiet | captures;
        let king_target = if self.variant == Variant::Atomic { quiet } else { target };
        for from in ours - pos.by_role(Role::Pawn) {
            let reach = match pos.role_at(from) {
                Some(Role::Knight) => attacks::knight_attacks(from) & target,
                Some(Role::Bishop) => attacks::bishop_attacks(from, occupied) & target,
                Some(Role::Rook) => attacks::rook_attacks(from, occupied) & target,
                Some(Role::Queen) => {
                    (attacks::bishop_attacks(from, occupied)
                        | attacks::rook_attacks(from, occupied))
                        & target
                }
                Some(Role::King) => attacks::king_attacks(from) & king_target,
                Some(Role::Pawn) | None => Bitboard::EMPTY,
            };
            moves.extend(reach.into_iter().map(|to| Move::new(from, to, MoveKind::Normal)));
        }
        let promotions: &[Role] = if self.variant == Variant::Antichess {
            &[Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::King]
        } else {
            &Role::PROMOTIONS
        };
        let last_rank = Rank::Eighth.relative_to(us);
        let up = us.fold(8, -8);
        let mut push = |from: Square, to: Square| {
            if to.rank() == last_rank {
                moves.extend(
                    promotions.iter().map(|&role| Move::new(from, to, MoveKind::Promotion(role))),
                );
            } else {
                moves.push(Move::new(from, to, MoveKind::Normal));
            }
        };
        for from in pos.pieces(Piece { color: us, role: Role::Pawn }) {
            for to in attacks::pawn_attacks(us, from) & captures {
                push(from, to);
            }
            let Some(step) = from.offset(up).filter(|&sq| !occupied.contains(sq)) else {
                continue;
            };
            if quiet.contains(step) {
                push(from, step);
            }
            let home = matches!(from.rank().relative_to(us), Rank::First | Rank::Second);
            if let Some(double) = step.offset(up).filter(|&sq| home && quiet.contains(sq)) {
                push(from, double);
            }
        }
        if let Some(ep) = pos.ep_square
            && captures.any()
        {
            let capturers =
                attacks::pawn_attacks(!us, ep) & pos.pieces(Piece { color: us, role: Role::Pawn });
            moves
                .extend(capturers.into_iter().map(|from| Move::new(from, ep, MoveKind::EnPassant)));
        }
    }

    /// Atomic castling: the rights, an empty path, and the king neither in
    /// check nor passing through an attacked square, attacks counted as
    /// atomic counts them (whether it lands safe is left to the filter
    /// that plays every move).
    fn push_atomic_castling(&self, moves: &mut Vec<Move>) {
        let pos = &self.board;
        let us = pos.turn;
        let Some(king) = self.king_of(us) else { return };
        let occupied = pos.occupied();
        for rook in pos.castling & Bitboard::from_rank(us.back_rank()) {
            let (king_to, rook_to) = castling_squares(us, king, rook);
            let king_path = attacks::between(king, king_to).with(king_to);
            let rook_path = attacks::between(rook, rook_to).with(rook_to);
            if (occupied & (king_path | rook_path).without(king).without(rook)).any() {
                continue;
            }
            let without_king = occupied.without(king);
            let crossed = attacks::between(king, king_to).with(king);
            if crossed.into_iter().any(|sq| self.atomic_attacked(sq, !us, without_king)) {
                continue;
            }
            moves.push(Move::new(king, rook, MoveKind::Castle));
        }
    }

    /// The position after the legal move `m`.
    ///
    /// ```
    /// use arbiter_chess::{Role, Square, Variant, VariantMove, VariantPosition};
    /// let pos: VariantPosition = VariantPosition::from_fen(
    ///     "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1", Variant::Crazyhouse, Default::default()).unwrap();
    /// let after = pos.play(VariantMove::Drop { role: Role::Knight, to: Square::F3 });
    /// assert_eq!(after.fen().as_str(), "4k3/8/8/8/8/5N2/8/4K3[] b - - 1 1");
    /// ```
    #[must_use]
    pub fn play(&self, m: VariantMove) -> VariantPosition {
        let mut next = self.clone();
        next.play_unchecked(m);
        next
    }

    /// Plays the legal move `m` in place.
    pub fn play_unchecked(&mut self, m: VariantMove) {
        let us = self.turn();
        match m {
            VariantMove::Drop { role, to } => {
                self.pockets[us.index()].take(role);
                self.board.drop_unchecked(Piece { color: us, role }, to);
            }
            VariantMove::Board(m) => self.play_board(m),
        }
    }

    /// Plays a move on the board with what the variant adds to it.
    pub(super) fn play_board(&mut self, m: Move) {
        let us = self.turn();
        let (from, to) = (m.from(), m.to());
        let capture = match m.kind() {
            MoveKind::EnPassant => true,
            MoveKind::Castle => false,
            MoveKind::Normal | MoveKind::Promotion(_) => self.board.by_color(!us).contains(to),
        };
        match self.variant {
            Variant::Crazyhouse => {
                if capture {
                    let role = match self.board.role_at(to) {
                        Some(role) if !self.promoted.contains(to) => role,
                        _ => Role::Pawn,
                    };
                    self.pockets[us.index()].add(role);
                }
                if !m.is_castle() {
                    let promoted = self.promoted.contains(from) || m.promotion().is_some();
                    self.promoted = self.promoted.without(from).without(to);
                    if promoted {
                        self.promoted |= to;
                    }
                }
                self.board.play_unchecked(m);
            }
            Variant::Atomic => {
                self.board.play_unchecked(m);
                if capture {
                    self.explode(to);
                }
            }
            Variant::ThreeCheck => {
                self.board.play_unchecked(m);
                if self.board.is_check() {
                    let left = &mut self.remaining_checks[us.index()];
                    *left = left.saturating_sub(1);
                }
            }
            Variant::Horde => {
                let first_rank = from.rank() == Rank::First.relative_to(us);
                self.board.play_unchecked(m);
                if first_rank {
                    // A double step from the first rank leaves no en-passant
                    // square (lichess and python-chess agree).
                    self.board.ep_square = None;
                }
            }
            Variant::Antichess | Variant::KingOfTheHill | Variant::RacingKings => {
                self.board.play_unchecked(m);
            }
        }
    }

    /// Atomic: the capturer on `center` and every piece but pawns around it
    /// leave the board, with the castling rights of exploded rooks and kings.
    fn explode(&mut self, center: Square) {
        let debris = self.board.occupied() - self.board.by_role(Role::Pawn);
        let blast = (attacks::king_attacks(center) & debris).with(center);
        for color in Color::ALL {
            if (blast & self.board.pieces(Piece { color, role: Role::King })).any() {
                self.board.discard_castling(Bitboard::from_rank(color.back_rank()));
            }
        }
        self.board.discard_castling(blast);
        for sq in blast {
            self.board.discard_piece(sq);
        }
        // Pins and checks as a freshly read position has them.
        self.board.update_check_info();
    }

    /// Hash of what makes positions the same for repetition: placement,
    /// side to move, castling rights, the en-passant square when a legal
    /// move captures there, and the variant's pockets, promoted marks and
    /// remaining checks.
    ///
    /// ```
    /// use arbiter_chess::{Variant, VariantPosition};
    /// let zh = VariantPosition::new(Variant::Crazyhouse);
    /// let koth = VariantPosition::new(Variant::KingOfTheHill);
    /// assert_eq!(zh.zobrist(), koth.zobrist());
    /// ```
    pub fn zobrist(&self) -> u64 {
        self.hash_with(self.legal_ep_square())
    }

    /// The en-passant square, only when a legal move captures there.
    fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.board.ep_square?;
        self.legal_moves()
            .iter()
            .any(|m| matches!(m, VariantMove::Board(m) if m.kind() == MoveKind::EnPassant))
            .then_some(ep)
    }

    /// [`VariantPosition::zobrist`] with `ep` as the legal en-passant square.
    fn hash_with(&self, ep: Option<Square>) -> u64 {
        let mut hash = self.board.hash;
        if let Some(ep) = ep {
            hash ^= zobrist::en_passant_key(ep);
        }
        for color in Color::ALL {
            for role in Pocket::ROLES {
                let count = self.pockets[color.index()].count(role);
                if count > 0 {
                    hash ^= zobrist::pocket_key(color, role, count);
                }
            }
            if self.variant == Variant::ThreeCheck {
                hash ^= zobrist::remaining_checks_key(color, self.remaining_checks[color.index()]);
            }
        }
        for sq in self.promoted {
            hash ^= zobrist::promoted_key(sq);
        }
        hash
    }

    /// What makes this position the same as another for repetition, in
    /// full, with its [`zobrist`](VariantPosition::zobrist) hash to find it.
    pub(crate) fn standing(&self) -> Standing {
        let ep = self.legal_ep_square();
        Standing {
            hash: self.hash_with(ep),
            by_role: self.board.by_role,
            by_color: self.board.by_color,
            turn: self.board.turn,
            castling: self.board.castling_rights(),
            ep,
            pockets: self.pockets,
            promoted: self.promoted,
            remaining_checks: self.remaining_checks,
        }
    }
}

/// A position as the repetition rules compare it: placement, side to move,
/// castling rights, the en-passant square when a legal move captures there,
/// pockets, promoted marks and remaining checks. Two standings are equal
/// only when all of these are; the hash only finds the candidates, so a
/// collision of 64-bit keys never makes two positions one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Standing {
    pub(super) hash: u64,
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
    turn: Color,
    castling: Bitboard,
    ep: Option<Square>,
    pockets: [Pocket; 2],
    promoted: Bitboard,
    remaining_checks: [u8; 2],
}

impl std::hash::Hash for Standing {
    /// The Zobrist hash alone: it is a function of the rest.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// The number of legal move sequences of length `depth` from `pos`
/// ([`GamePosition::perft`](crate::GamePosition::perft) for every rule set).
pub(crate) fn variant_perft(pos: &VariantPosition, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => pos.legal_moves().into_iter().map(|m| variant_perft(&pos.play(m), depth - 1)).sum(),
    }
}

/// The count below each legal move of `pos` at `depth`, as
/// [`divide_until`](crate::divide_until) gives chess's: `None` as soon as
/// `stop` says so, which it asks before each subtree deeper than two plies.
pub(crate) fn variant_divide_until(
    pos: &VariantPosition,
    depth: u32,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<(VariantMove, u64)>> {
    if depth == 0 {
        return Some(Vec::new());
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| Some((m, variant_perft_until(&pos.play(m), depth - 1, stop)?)))
        .collect()
}

fn variant_perft_until(pos: &VariantPosition, depth: u32, stop: &dyn Fn() -> bool) -> Option<u64> {
    if stop() {
        return None;
    }
    if depth <= 2 {
        return Some(variant_perft(pos, depth));
    }
    pos.legal_moves().into_iter().map(|m| variant_perft_until(&pos.play(m), depth - 1, stop)).sum()
}
