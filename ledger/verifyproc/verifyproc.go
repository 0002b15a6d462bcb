// Package verifyproc runs the ledger's signature verifier: the program
// reelier-attest in its ledger-verify mode, as one long-lived child of
// `reelier ledger serve`, spoken to in JSON lines (ledger/wire's
// VerifyRequest and VerifyAnswer). The child holds the signing stack
// (sigstore-go), which is kept out of the reelier binary.
//
// One request is in flight at a time. Each has a deadline; a child that
// misses it, dies, or answers out of turn is killed and a fresh one is
// started for the next request. Lines either way are bounded
// (wire.MaxVerifyLine).
package verifyproc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/wire"
)

// DefaultTimeout bounds the verification of one record.
const DefaultTimeout = 10 * time.Second

// startTimeout bounds a child's start, up to its ready line.
const startTimeout = 30 * time.Second

// Proc is the verifier child.
type Proc struct {
	// Program and Args start the child: reelier-attest and
	// ledger-verify with the trust flags.
	Program string
	Args    []string
	// Timeout bounds one record (DefaultTimeout when zero).
	Timeout time.Duration
	// Logf logs restarts and the child's stderr.
	Logf func(format string, args ...any)

	mu    sync.Mutex
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan line
	done  chan struct{}
	// exited is closed once the child has exited and been reaped.
	exited chan struct{}
	nextID uint64
	// Starts counts the children started (for tests and the log).
	Starts int
}

// line is one line the child wrote, or why it could not be read.
type line struct {
	data []byte
	err  error
}

// Start starts the child and waits for its ready line; an error says why
// it would not start (its stderr's last line when it said one).
func (p *Proc) Start(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.start(ctx)
}

func (p *Proc) logf(format string, args ...any) {
	if p.Logf != nil {
		p.Logf(format, args...)
	}
}

func (p *Proc) start(ctx context.Context) error {
	cmd := exec.Command(p.Program, p.Args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr := &tail{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.Program, err)
	}
	p.Starts++
	lines, done := make(chan line, 1), make(chan struct{})
	go read(stdout, lines, done)
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	p.cmd, p.stdin, p.lines, p.done, p.exited = cmd, stdin, lines, done, exited
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var a wire.VerifyAnswer
	l, err := p.next(ctx)
	if err == nil {
		err = json.Unmarshal(l, &a)
	}
	if err == nil && !a.Ready {
		err = fmt.Errorf("its first line is not the ready line: %.200q", l)
	}
	if err != nil {
		p.kill()
		if msg := stderr.last(); msg != "" {
			return fmt.Errorf("%s did not start: %s", p.Program, termtext.Line(msg))
		}
		return fmt.Errorf("%s did not start: %v", p.Program, err)
	}
	return nil
}

// read hands each line of r to lines, then the error that ended it,
// until done is closed.
func read(r io.Reader, lines chan<- line, done <-chan struct{}) {
	br := bufio.NewReaderSize(r, 64<<10)
	send := func(l line) bool {
		select {
		case lines <- l:
			return true
		case <-done:
			return false
		}
	}
	for {
		var buf []byte
		for {
			chunk, err := br.ReadSlice('\n')
			buf = append(buf, chunk...)
			if len(buf) > wire.MaxVerifyLine {
				send(line{err: fmt.Errorf("the verifier wrote a line of more than %d bytes", wire.MaxVerifyLine)})
				return
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if err == io.EOF {
					err = errors.New("the verifier exited")
				}
				send(line{err: err})
				return
			}
			break
		}
		if !send(line{data: bytes.TrimSpace(buf)}) {
			return
		}
	}
}

// next is the child's next line, or an error when it ended or ctx did.
func (p *Proc) next(ctx context.Context) ([]byte, error) {
	select {
	case l := <-p.lines:
		return l.data, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// kill ends the child and forgets it.
func (p *Proc) kill() {
	if p.cmd == nil {
		return
	}
	close(p.done)
	p.stdin.Close()
	p.cmd.Process.Kill()
	<-p.exited
	p.cmd, p.stdin, p.lines, p.done, p.exited = nil, nil, nil, nil, nil
}

// Kill ends the child as if it had died, and returns once it has exited:
// the next record starts another.
func (p *Proc) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// Close ends the child.
func (p *Proc) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.kill()
	return nil
}

// Verify is server.Config.VerifyRecord: it asks the child about one
// record and its bundle. A refusal is a *server.Rejection; a child that
// died, timed out or could not be started is an error the ledger
// answers 503 (the child is started afresh for the next record).
func (p *Proc) Verify(ctx context.Context, skill string, record, bundle []byte) (server.Signature, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if p.cmd != nil {
		select {
		case <-p.exited:
			p.logf("ledger: the signature verifier had exited; starting another")
			p.kill()
		default:
		}
	}
	if p.cmd == nil {
		p.logf("ledger: starting the signature verifier %s", p.Program)
		if err := p.start(ctx); err != nil {
			return server.Signature{}, err
		}
	}
	p.nextID++
	req, err := json.Marshal(wire.VerifyRequest{ID: p.nextID, Skill: skill, Record: record, Bundle: bundle})
	if err != nil {
		return server.Signature{}, err
	}
	if len(req) >= wire.MaxVerifyLine {
		return server.Signature{}, &server.Rejection{Reason: fmt.Sprintf("the record and its bundle are more than %d bytes", wire.MaxVerifyLine)}
	}
	a, err := p.ask(ctx, append(req, '\n'))
	if err != nil {
		p.logf("ledger: the signature verifier failed (%v); it is started afresh for the next record", err)
		p.kill()
		return server.Signature{}, fmt.Errorf("the signature verifier: %w", err)
	}
	if a.Reject != "" {
		return server.Signature{}, &server.Rejection{Reason: a.Reject}
	}
	switch a.State {
	case wire.SignatureVerified, wire.SignatureUntrusted:
	default:
		p.kill()
		return server.Signature{}, fmt.Errorf("the signature verifier answered state %q", a.State)
	}
	return server.Signature{State: server.SignatureState(a.State), Signer: a.Signer}, nil
}

// ask writes one request and reads its answer.
func (p *Proc) ask(ctx context.Context, req []byte) (wire.VerifyAnswer, error) {
	var a wire.VerifyAnswer
	written := make(chan error, 1)
	stdin := p.stdin
	go func() {
		_, err := stdin.Write(req)
		written <- err
	}()
	l, err := p.next(ctx)
	if err != nil {
		return a, err
	}
	if err := <-written; err != nil {
		return a, err
	}
	if err := json.Unmarshal(l, &a); err != nil {
		return a, fmt.Errorf("its answer is not JSON: %v", err)
	}
	if a.ID != p.nextID {
		return a, fmt.Errorf("it answered request %d, not %d", a.ID, p.nextID)
	}
	return a, nil
}

// tail keeps the last 4 KiB a child wrote to stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(b), nil
}

// last is the last non-empty line written, without "reelier: ".
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-1]), "reelier: ")
}
