package fleet

import (
	"crypto/ed25519"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// Presence keeps an instance known on the broker: it publishes the
// instance's Status, signed with the instance's key, on its announce
// subject every so often and soon after a client asks every instance to
// (discover; requests that come faster are answered together), answers
// ping requests, and announces the instance gone when stopped. status is
// called on Presence's goroutines: it must not touch the game's world (the
// agent hands it a copy taken in Sync).
type Presence struct {
	nc       *nats.Conn
	prefix   string
	instance string
	every    time.Duration
	key      ed25519.PrivateKey
	status   func() Status
	subs     []*nats.Subscription
	nudge    chan struct{}
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once

	bucket    float64 // ping replies allowed now (replyRate a second, replyBurst at most)
	refilled  time.Time
	bucketMu  sync.Mutex
	Throttled atomic.Uint64 // ping requests left unanswered: more than replyRate a second came
	// Misdirected counts ping requests left unanswered because their reply
	// subject was not an inbox.
	Misdirected atomic.Uint64
	// Discovers counts discover requests; Announced, the announcements
	// they and the clock made.
	Discovers, Announced atomic.Uint64
}

// Ping replies an instance sends at most, a second, so a flood of
// requests costs it little; discover requests cost at most one
// announcement each announceGap.
const (
	replyRate   = 20
	replyBurst  = 40
	announceGap = 250 * time.Millisecond
)

// Present starts announcing status under prefix every every (2 s if 0),
// signed with key.
func Present(nc *nats.Conn, prefix string, every time.Duration, key ed25519.PrivateKey, status func() Status) (*Presence, error) {
	if every <= 0 {
		every = 2 * time.Second
	}
	p := &Presence{nc: nc, prefix: prefix, instance: status().Instance, every: every, key: key, status: status,
		nudge: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), bucket: replyBurst, refilled: time.Now()}
	for subj, handle := range map[string]nats.MsgHandler{DiscoverSubject(prefix): p.discovered, PingSubject(prefix, p.instance): p.answer} {
		sub, err := nc.Subscribe(subj, handle)
		if err != nil {
			p.unsubscribe()
			return nil, err
		}
		if err := sub.SetPendingLimits(256, 1<<20); err != nil { // a flood is dropped, not queued
			p.unsubscribe()
			return nil, err
		}
		p.subs = append(p.subs, sub)
	}
	Flush(nc) // answers from now on (a broker not reached yet gets the subscriptions when it is)
	go p.run()
	return p, nil
}

// Every is the time between announcements.
func (p *Presence) Every() time.Duration { return p.every }

func (p *Presence) run() {
	defer close(p.done)
	t := time.NewTicker(p.every)
	defer t.Stop()
	p.announce(false)
	last := time.Now()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		case <-p.nudge:
			if wait := announceGap - time.Since(last); wait > 0 { // requests that come faster are answered together
				select {
				case <-p.stop:
					return
				case <-time.After(wait):
				}
			}
		}
		p.announce(false)
		last = time.Now()
	}
}

// discovered takes a discover request: an announcement soon.
func (p *Presence) discovered(*nats.Msg) {
	p.Discovers.Add(1)
	select {
	case p.nudge <- struct{}{}:
	default:
	}
}

// answer replies to a ping request, within the reply rate, to an inbox
// only: a pinger that names another subject for the reply (an instance's
// announcements, a session) is not answered, so a ping cannot make an
// instance publish where its status does not belong.
func (p *Presence) answer(m *nats.Msg) {
	if !strings.HasPrefix(m.Reply, "_INBOX.") {
		p.Misdirected.Add(1)
		return
	}
	p.bucketMu.Lock()
	now := time.Now()
	p.bucket = min(replyBurst, p.bucket+now.Sub(p.refilled).Seconds()*replyRate)
	p.refilled = now
	ok := p.bucket >= 1
	if ok {
		p.bucket--
	}
	p.bucketMu.Unlock()
	if !ok {
		p.Throttled.Add(1)
		return
	}
	p.publish(m.Reply, false)
}

// announce publishes the status on the instance's announce subject.
func (p *Presence) announce(gone bool) {
	p.Announced.Add(1)
	p.publish(AnnounceSubject(p.prefix, p.instance), gone)
}

func (p *Presence) publish(subject string, gone bool) {
	s := p.status()
	s.At, s.Every, s.Gone = time.Now().UnixMilli(), p.every.Seconds(), gone
	m, err := signedStatus(subject, s, p.key)
	if err != nil {
		return
	}
	_ = p.nc.PublishMsg(m) // a broker that is down: the next one goes when it is back
}

func (p *Presence) unsubscribe() {
	for _, s := range p.subs {
		_ = s.Unsubscribe()
	}
}

// Stop announces the instance gone and stops.
func (p *Presence) Stop() {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		p.unsubscribe()
		p.announce(true)
		Flush(p.nc)
	})
}
