//! Fairness between clients: one connection (`--max-connection-share`) and
//! one peer address (`--max-peer-share`) may hold at most a share of each
//! admission budget. A client over its share has its new calls shed while
//! the others' still find room, so that one client, however many calls it
//! sends, cannot take every slot.
//!
//! A share of 100% checks nothing and keeps no count (the default for peer
//! addresses: behind a proxy or a service mesh every call comes from the
//! proxy's address, and a share would cap the whole traffic).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// Shares of the admission budgets, in percent (1 to 100).
#[derive(Clone, Copy, Debug)]
pub struct SharePolicy {
    /// The most one connection may hold.
    pub connection: u8,
    /// The most one peer address may hold.
    pub peer: u8,
}

/// Which client a call comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Holder {
    Connection(u64),
    Peer(IpAddr),
}

impl Holder {
    fn name(self) -> &'static str {
        match self {
            Holder::Connection(_) => "this connection",
            Holder::Peer(_) => "this client's address",
        }
    }

    fn flag(self) -> &'static str {
        match self {
            Holder::Connection(_) => "--max-connection-share",
            Holder::Peer(_) => "--max-peer-share",
        }
    }
}

/// Calls a holder has, of each budget: `[calls, unary]`.
type Held = [usize; 2];

/// The holders' counts, and the most each may hold.
#[derive(Debug)]
pub(super) struct Shares {
    policy: SharePolicy,
    /// The most a connection may hold of each budget, if it is limited.
    connection: Option<Held>,
    /// The most a peer address may hold of each budget, if it is limited.
    peer: Option<Held>,
    held: Mutex<HashMap<Holder, Held>>,
}

/// Why a call is over its client's share: for the shed answer.
#[derive(Debug)]
pub(super) struct OverShare {
    holder: Holder,
    most: usize,
    percent: u8,
}

impl std::fmt::Display for OverShare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "server busy: {} holds {} calls, the most one client may hold ({} {}%); \
             retry with backoff",
            self.holder.name(),
            self.most,
            self.holder.flag(),
            self.percent
        )
    }
}

/// A call's place in its holders' counts, given back when dropped.
#[derive(Debug)]
pub(super) struct ShareGuard {
    shares: Arc<Shares>,
    holders: [Option<Holder>; 2],
    unary: bool,
}

impl Shares {
    /// Shares of budgets of `max_calls` calls and `max_unary` unary calls.
    pub(super) fn new(policy: SharePolicy, max_calls: usize, max_unary: usize) -> Shares {
        let most = |percent: u8| {
            let of = |limit: usize| (limit * usize::from(percent)).div_ceil(100).max(1);
            (percent < 100).then(|| [of(max_calls), of(max_unary)])
        };
        Shares {
            policy,
            connection: most(policy.connection),
            peer: most(policy.peer),
            held: Mutex::default(),
        }
    }

    fn most(&self, holder: Holder) -> Option<Held> {
        match holder {
            Holder::Connection(_) => self.connection,
            Holder::Peer(_) => self.peer,
        }
    }

    /// Counts a call of `connection` from `peer` (a unary one if `unary`),
    /// or says which share it is over.
    pub(super) fn take(
        self: &Arc<Shares>,
        connection: Option<u64>,
        peer: Option<IpAddr>,
        unary: bool,
    ) -> Result<Option<ShareGuard>, OverShare> {
        let holders = [
            connection.map(Holder::Connection).filter(|_| self.connection.is_some()),
            peer.map(Holder::Peer).filter(|_| self.peer.is_some()),
        ];
        if holders.iter().all(Option::is_none) {
            return Ok(None);
        }
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        for holder in holders.into_iter().flatten() {
            let most = self.most(holder).unwrap_or([usize::MAX; 2]);
            let has = held.get(&holder).copied().unwrap_or_default();
            let budget = usize::from(unary);
            if has[0] >= most[0] || has[budget] >= most[budget] {
                let (most, percent) = (most[budget], self.percent(holder));
                return Err(OverShare { holder, most, percent });
            }
        }
        for holder in holders.into_iter().flatten() {
            let has = held.entry(holder).or_default();
            has[0] += 1;
            has[1] += usize::from(unary);
        }
        Ok(Some(ShareGuard { shares: Arc::clone(self), holders, unary }))
    }

    fn percent(&self, holder: Holder) -> u8 {
        match holder {
            Holder::Connection(_) => self.policy.connection,
            Holder::Peer(_) => self.policy.peer,
        }
    }
}

impl Drop for ShareGuard {
    fn drop(&mut self) {
        let mut held = self.shares.held.lock().unwrap_or_else(PoisonError::into_inner);
        for holder in self.holders.into_iter().flatten() {
            if let Some(has) = held.get_mut(&holder) {
                has[0] -= 1;
                has[1] -= usize::from(self.unary);
                if has[0] == 0 {
                    held.remove(&holder);
                }
            }
        }
    }
}
