package session

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Table holds the records of one transport's sessions under one mutex, with
// the bounds all of them share: how many sessions may be open and how many
// bytes they may keep for their lives together.
type Table struct {
	maxSessions int
	maxRetained int64

	mu       sync.Mutex
	records  map[string]*Record
	clock    uint64 // counts admissions, to order sessions by last use
	retained int64  // what the records keep, plus what reservations bring
	reserved int    // sessions reserved and not yet among the records
}

// NewTable returns a table of at most maxSessions sessions that keep at most
// maxRetained bytes together.
func NewTable(maxSessions int, maxRetained int64) *Table {
	return &Table{maxSessions: maxSessions, maxRetained: maxRetained, records: map[string]*Record{}}
}

// Open returns the record of session id, making it with limits and pin when
// there is none.
func (t *Table) Open(id string, limits Limits, pin Pin) *Record {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.openLocked(id, limits, pin)
}

func (t *Table) openLocked(id string, limits Limits, pin Pin) *Record {
	r := t.records[id]
	if r == nil {
		t.clock++
		r = &Record{t: t, limits: limits, pin: pin, last: t.clock,
			pending: map[jsonrpc.ID]*Call{}, changed: make(chan struct{})}
		t.records[id] = r
	}
	return r
}

// Begin records that session id was just made by an initialize, which keeps
// keeps bytes (already reserved) and is with go-sdk: the session is pinned to
// the handshake and ordered until End.
func (t *Table) Begin(id string, limits Limits, keeps int64) *Record {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.openLocked(id, limits, Pin{Kind: Handshake})
	r.ordered++
	t.retained += keeps - r.retained
	r.retained = keeps
	return r
}

// End ends the ordering Begin started, even if the table has since dropped r.
func (r *Record) End() {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	r.ordered--
	r.notifyLocked()
}

// Reserve makes room for a session about to be made that will keep keeps
// bytes: open lists the sessions that exist (a record of any other is
// dropped), and the places taken are those plus the reservations not yet
// ended. When the new one does not fit by count or by bytes, the least
// recently used idle sessions (nothing in flight, no initialize) are chosen,
// oldest first, ties by id, and their records dropped: victims are the
// sessions the caller must close. It reports false, choosing none, when no
// choice makes room.
func (t *Table) Reserve(keeps int64, open []string) (victims []string, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, r := range t.records {
		if !slices.Contains(open, id) {
			t.dropLocked(id, r) // closed or expired
		}
	}
	if len(open)+t.reserved > t.maxSessions || keeps > t.maxRetained {
		// Room by count would take more than one closed session: the other
		// places are reservations, which closing sessions does not free.
		return nil, false
	}
	idle := make([]string, 0, len(open))
	for _, id := range open {
		if r := t.records[id]; r == nil || r.places == 0 && r.unplaced == 0 && r.ordered == 0 {
			idle = append(idle, id)
		}
	}
	slices.SortFunc(idle, func(a, b string) int {
		return cmp.Or(cmp.Compare(t.lastLocked(a), t.lastLocked(b)), strings.Compare(a, b))
	})
	n, kept := len(open), t.retained
	for n+t.reserved >= t.maxSessions || kept+keeps > t.maxRetained {
		if len(victims) == len(idle) {
			return nil, false
		}
		victim := idle[len(victims)]
		if r := t.records[victim]; r != nil {
			kept -= r.retained
		}
		victims = append(victims, victim)
		n--
	}
	for _, id := range victims {
		if r := t.records[id]; r != nil {
			t.dropLocked(id, r)
		}
	}
	t.reserved++
	t.retained += keeps
	return victims, true
}

// Unreserve ends a reservation once the request that made it is answered:
// the session it made, if any, has been charged by Begin.
func (t *Table) Unreserve(keeps int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reserved--
	t.retained -= keeps
}

// dropLocked forgets record r of session id and what it keeps.
func (t *Table) dropLocked(id string, r *Record) {
	t.retained -= r.retained
	r.retained = 0
	delete(t.records, id)
}

// lastLocked is when session id was last used; 0 for one without a record.
func (t *Table) lastLocked(id string) uint64 {
	if r := t.records[id]; r != nil {
		return r.last
	}
	return 0
}

// Retained is what the table's sessions keep, with the reservations.
func (t *Table) Retained() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.retained
}

// Len is how many sessions the table has a record of.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.records)
}
