//! The rival engines of the validate workload: shakmaty 0.30.1, with its own
//! SAN and UCI, and cozy-chess 0.3, with a SAN reader and writer built here
//! on its legal move generator. Each replays a game as [`super::Engine`]
//! asks and keeps what the outcome needs.

use super::{Engine, GameEnd};

pub(crate) struct Shakmaty;

/// shakmaty's side of a game: the position and the Zobrist hashes of the
/// positions since the last capture or pawn move.
struct ShakmatyGame {
    pos: shakmaty::Chess,
    history: Vec<u64>,
    repetitions: usize,
    ended: Option<GameEnd>,
}

impl ShakmatyGame {
    fn new() -> ShakmatyGame {
        let pos = shakmaty::Chess::default();
        let history = vec![Self::hash(&pos)];
        ShakmatyGame { pos, history, repetitions: 1, ended: None }
    }

    fn hash(pos: &shakmaty::Chess) -> u64 {
        use shakmaty::Position as _;
        pos.zobrist_hash::<shakmaty::zobrist::Zobrist64>(shakmaty::EnPassantMode::Legal).0
    }

    /// Records the position after a move; `mated` if the move was seen to
    /// mate.
    fn after_move(&mut self, mated: bool) {
        use shakmaty::Position as _;
        let pos = &self.pos;
        if pos.halfmoves() == 0 {
            self.history.clear();
        }
        let hash = Self::hash(pos);
        self.repetitions =
            1 + self.history.iter().rev().skip(1).step_by(2).filter(|&&h| h == hash).count();
        self.history.push(hash);
        self.ended = GameEnd::after_move(
            mated,
            pos.turn().is_white(),
            pos.is_insufficient_material(),
            self.repetitions,
            pos.halfmoves(),
            || (pos.legal_moves().is_empty(), pos.is_check()),
        );
    }

    fn verdict(&self) -> GameEnd {
        use shakmaty::{KnownOutcome, Outcome, Position as _};
        if let Some(verdict) = self.ended {
            return verdict;
        }
        match self.pos.outcome() {
            Outcome::Known(KnownOutcome::Decisive { winner }) => {
                GameEnd::Checkmate { white_wins: winner.is_white() }
            }
            Outcome::Known(KnownOutcome::Draw) if self.pos.is_insufficient_material() => {
                GameEnd::DeadPosition
            }
            Outcome::Known(KnownOutcome::Draw) => GameEnd::Stalemate,
            Outcome::Unknown => GameEnd::Ongoing {
                fifty_move: self.pos.halfmoves() >= 100,
                threefold: self.repetitions >= 3,
            },
        }
    }
}

impl Engine for Shakmaty {
    const NAME: &'static str = "shakmaty";

    fn san_game(tokens: &[String], out: &mut String) -> (usize, GameEnd) {
        use shakmaty::san::{SanPlus, Suffix};
        let mut game = ShakmatyGame::new();
        let mut plies = 0;
        for token in tokens {
            if game.ended.is_some() {
                break;
            }
            let Ok(read) = SanPlus::from_ascii(token.as_bytes()) else { break };
            let Ok(m) = read.san.to_move(&game.pos) else { break };
            let written = SanPlus::from_move_and_play_unchecked(&mut game.pos, m);
            written.append_to_string(out);
            out.push(' ');
            plies += 1;
            game.after_move(written.suffix == Some(Suffix::Checkmate));
        }
        (plies, game.verdict())
    }

    fn uci_game(tokens: &[String], out: &mut String) -> (usize, GameEnd) {
        use shakmaty::Position as _;
        use shakmaty::uci::UciMove;
        let mut game = ShakmatyGame::new();
        let mut plies = 0;
        for token in tokens {
            if game.ended.is_some() {
                break;
            }
            let Ok(read) = UciMove::from_ascii(token.as_bytes()) else { break };
            let Ok(m) = read.to_move(&game.pos) else { break };
            game.pos.play_unchecked(m);
            m.to_uci(shakmaty::CastlingMode::Standard).append_to_string(out);
            out.push(' ');
            plies += 1;
            game.after_move(false);
        }
        (plies, game.verdict())
    }
}

pub(crate) struct Cozy;

/// A move in SAN as read for cozy-chess.
enum CozySan {
    Castle {
        short: bool,
    },
    Normal {
        piece: cozy_chess::Piece,
        file: Option<cozy_chess::File>,
        rank: Option<cozy_chess::Rank>,
        capture: bool,
        to: cozy_chess::Square,
        promotion: Option<cozy_chess::Piece>,
    },
}

/// cozy-chess's side of a game. Its half-move clock stops at 100, so the
/// 75-move rule needs a clock of our own.
struct CozyGame {
    board: cozy_chess::Board,
    history: Vec<u64>,
    repetitions: usize,
    halfmoves: u32,
    ended: Option<GameEnd>,
}

impl CozyGame {
    fn new() -> CozyGame {
        let board = cozy_chess::Board::default();
        let history = vec![Self::key(&board)];
        CozyGame { board, history, repetitions: 1, halfmoves: 0, ended: None }
    }

    /// The repetition key: the hash, with the en-passant file only when an
    /// en-passant capture is legal (cozy-chess keeps it after every double
    /// step).
    fn key(board: &cozy_chess::Board) -> u64 {
        use cozy_chess::{Move, Piece, Rank, Square};
        let Some(file) = board.en_passant() else { return board.hash() };
        let us = board.side_to_move();
        let to = Square::new(file, Rank::Sixth.relative_to(us));
        let capturers =
            cozy_chess::get_pawn_attacks(to, !us) & board.colored_pieces(us, Piece::Pawn);
        if capturers.into_iter().any(|from| board.is_legal(Move { from, to, promotion: None })) {
            board.hash()
        } else {
            board.hash_without_ep()
        }
    }

    fn has_moves(board: &cozy_chess::Board) -> bool {
        board.generate_moves(|_| true)
    }

    /// Dead position: K v K, K+N v K, or bishops on one square colour only.
    fn is_dead(board: &cozy_chess::Board) -> bool {
        use cozy_chess::{BitBoard, Piece};
        let heavy =
            board.pieces(Piece::Pawn) | board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
        if !heavy.is_empty() {
            return false;
        }
        let knights = board.pieces(Piece::Knight);
        let bishops = board.pieces(Piece::Bishop);
        if !knights.is_empty() {
            return knights.len() == 1 && bishops.is_empty();
        }
        (bishops & BitBoard::LIGHT_SQUARES).is_empty()
            || (bishops & BitBoard::DARK_SQUARES).is_empty()
    }

    /// Records the position after a move; `mated` if the move was seen to
    /// mate.
    fn after_move(&mut self, mated: bool) {
        let board = &self.board;
        if board.halfmove_clock() == 0 {
            self.halfmoves = 0;
            self.history.clear();
        } else {
            self.halfmoves += 1;
        }
        let key = Self::key(board);
        self.repetitions =
            1 + self.history.iter().rev().skip(1).step_by(2).filter(|&&k| k == key).count();
        self.history.push(key);
        self.ended = GameEnd::after_move(
            mated,
            board.side_to_move() == cozy_chess::Color::White,
            Self::is_dead(board),
            self.repetitions,
            self.halfmoves,
            || (!Self::has_moves(board), !board.checkers().is_empty()),
        );
    }

    fn verdict(&self) -> GameEnd {
        if let Some(verdict) = self.ended {
            return verdict;
        }
        let board = &self.board;
        if !Self::has_moves(board) {
            return if board.checkers().is_empty() {
                GameEnd::Stalemate
            } else {
                GameEnd::Checkmate { white_wins: board.side_to_move() == cozy_chess::Color::Black }
            };
        }
        GameEnd::Ongoing { fifty_move: self.halfmoves >= 100, threefold: self.repetitions >= 3 }
    }

    /// Reads SAN (with or without `+`/`#`), syntax only.
    fn read_san(text: &str) -> Option<CozySan> {
        use cozy_chess::{File, Piece, Rank, Square};
        let mut b = text.as_bytes();
        while let [rest @ .., b'+' | b'#'] = b {
            b = rest;
        }
        match b {
            b"O-O" => return Some(CozySan::Castle { short: true }),
            b"O-O-O" => return Some(CozySan::Castle { short: false }),
            _ => {}
        }
        let piece_of = |c: u8| match c {
            b'N' => Some(Piece::Knight),
            b'B' => Some(Piece::Bishop),
            b'R' => Some(Piece::Rook),
            b'Q' => Some(Piece::Queen),
            b'K' => Some(Piece::King),
            _ => None,
        };
        let file_of = |c: u8| File::try_from(c as char).ok();
        let rank_of = |c: u8| Rank::try_from(c as char).ok();
        let (piece, mut b) = match b.split_first() {
            Some((&c, rest)) if c.is_ascii_uppercase() => (piece_of(c)?, rest),
            _ => (Piece::Pawn, b),
        };
        let mut promotion = None;
        if let [rest @ .., b'=', p] = b {
            promotion = Some(piece_of(*p).filter(|&p| p != Piece::King)?);
            b = rest;
        }
        let [rest @ .., f, r] = b else { return None };
        let to = Square::new(file_of(*f)?, rank_of(*r)?);
        let (capture, rest) = match rest {
            [rest @ .., b'x'] => (true, rest),
            _ => (false, rest),
        };
        let (file, rank) = match *rest {
            [] => (None, None),
            [c] if c.is_ascii_digit() => (None, Some(rank_of(c)?)),
            [c] => (Some(file_of(c)?), None),
            [f, r] => (Some(file_of(f)?), Some(rank_of(r)?)),
            _ => return None,
        };
        if promotion.is_some() && piece != Piece::Pawn {
            return None;
        }
        Some(CozySan::Normal { piece, file, rank, capture, to, promotion })
    }

    /// The one legal move `san` names.
    fn find_san(&self, san: &CozySan) -> Option<cozy_chess::Move> {
        use cozy_chess::{Move, Piece, Rank, Square};
        let board = &self.board;
        let us = board.side_to_move();
        match *san {
            CozySan::Castle { short } => {
                let rights = board.castle_rights(us);
                let rook = if short { rights.short } else { rights.long }?;
                let to = Square::new(rook, Rank::First.relative_to(us));
                let mv = Move { from: board.king(us), to, promotion: None };
                board.is_legal(mv).then_some(mv)
            }
            CozySan::Normal { piece, file, rank, capture, to, promotion } => {
                if board.colors(us).has(to) {
                    return None;
                }
                let takes = board.colors(!us).has(to)
                    || (piece == Piece::Pawn
                        && board
                            .en_passant()
                            .is_some_and(|f| to == Square::new(f, Rank::Sixth.relative_to(us))));
                if capture != takes {
                    return None;
                }
                let mut mask = board.colored_pieces(us, piece);
                if let Some(file) = file {
                    mask &= file.bitboard();
                }
                if let Some(rank) = rank {
                    mask &= rank.bitboard();
                }
                let mv = |from| Move { from, to, promotion };
                let (mut found, mut count) = (None, 0);
                board.generate_moves_for(mask, |moves| {
                    if moves.has(mv(moves.from)) {
                        found = Some(mv(moves.from));
                        count += 1;
                    }
                    count > 1
                });
                found.filter(|_| count == 1)
            }
        }
    }

    /// Writes the canonical SAN of the legal `mv`, without `+`/`#`.
    fn write_san(board: &cozy_chess::Board, mv: cozy_chess::Move, out: &mut String) {
        use cozy_chess::{BitBoard, Piece};
        let us = board.side_to_move();
        let piece = board.piece_on(mv.from).expect("a legal move moves a piece");
        if piece == Piece::King && board.colors(us).has(mv.to) {
            out.push_str(if mv.to.file() > mv.from.file() { "O-O" } else { "O-O-O" });
            return;
        }
        if piece == Piece::Pawn {
            if mv.from.file() != mv.to.file() {
                out.push(mv.from.file().into());
                out.push('x');
            }
            push_square(out, mv.to);
            if let Some(promotion) = mv.promotion {
                out.push('=');
                out.push(char::from(promotion).to_ascii_uppercase());
            }
            return;
        }
        out.push(char::from(piece).to_ascii_uppercase());
        let others = board.colored_pieces(us, piece) & !mv.from.bitboard();
        if !others.is_empty() {
            let mut rivals = BitBoard::EMPTY;
            board.generate_moves_for(others, |moves| {
                if moves.to.has(mv.to) {
                    rivals |= moves.from.bitboard();
                }
                false
            });
            if !rivals.is_empty() {
                if (rivals & mv.from.file().bitboard()).is_empty() {
                    out.push(mv.from.file().into());
                } else if (rivals & mv.from.rank().bitboard()).is_empty() {
                    out.push(mv.from.rank().into());
                } else {
                    push_square(out, mv.from);
                }
            }
        }
        if board.colors(!us).has(mv.to) {
            out.push('x');
        }
        push_square(out, mv.to);
    }

    /// Reads UCI, castling as the king's two-square step, into cozy-chess's
    /// king-takes-rook form, and checks it.
    fn find_uci(&self, text: &str) -> Option<cozy_chess::Move> {
        use cozy_chess::{Rank, Square};
        let mut mv: cozy_chess::Move = text.parse().ok()?;
        let board = &self.board;
        let us = board.side_to_move();
        if mv.from == board.king(us) && (mv.from.file() as i8 - mv.to.file() as i8).abs() == 2 {
            let rights = board.castle_rights(us);
            let rook = if mv.to.file() > mv.from.file() { rights.short } else { rights.long }?;
            mv.to = Square::new(rook, Rank::First.relative_to(us));
        }
        board.is_legal(mv).then_some(mv)
    }

    /// Writes the legal `mv` as UCI, castling as the king's step.
    fn write_uci(board: &cozy_chess::Board, mv: cozy_chess::Move, out: &mut String) {
        use cozy_chess::{File, Square};
        let us = board.side_to_move();
        let to = if board.colors(us).has(mv.to) {
            let file = if mv.to.file() > mv.from.file() { File::G } else { File::C };
            Square::new(file, mv.from.rank())
        } else {
            mv.to
        };
        push_square(out, mv.from);
        push_square(out, to);
        if let Some(promotion) = mv.promotion {
            out.push(promotion.into());
        }
    }
}

fn push_square(out: &mut String, sq: cozy_chess::Square) {
    out.push(sq.file().into());
    out.push(sq.rank().into());
}

impl Engine for Cozy {
    const NAME: &'static str = "cozy-chess";

    fn san_game(tokens: &[String], out: &mut String) -> (usize, GameEnd) {
        let mut game = CozyGame::new();
        let mut plies = 0;
        for token in tokens {
            if game.ended.is_some() {
                break;
            }
            let Some(san) = CozyGame::read_san(token) else { break };
            let Some(mv) = game.find_san(&san) else { break };
            CozyGame::write_san(&game.board, mv, out);
            game.board.play_unchecked(mv);
            let mated = if game.board.checkers().is_empty() {
                false
            } else {
                let mated = !CozyGame::has_moves(&game.board);
                out.push(if mated { '#' } else { '+' });
                mated
            };
            out.push(' ');
            plies += 1;
            game.after_move(mated);
        }
        (plies, game.verdict())
    }

    fn uci_game(tokens: &[String], out: &mut String) -> (usize, GameEnd) {
        let mut game = CozyGame::new();
        let mut plies = 0;
        for token in tokens {
            if game.ended.is_some() {
                break;
            }
            let Some(mv) = game.find_uci(token) else { break };
            CozyGame::write_uci(&game.board, mv, out);
            out.push(' ');
            plies += 1;
            game.board.play_unchecked(mv);
            game.after_move(false);
        }
        (plies, game.verdict())
    }
}
