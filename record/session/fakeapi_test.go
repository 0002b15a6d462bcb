package session_test

import (
	"fmt"
	"sync"
)

// apiLog is what a scripted fake model API (Claude's Messages, Codex's
// Responses, Gemini's generateContent) keeps across the CLI's concurrent
// requests: the turns it answered and every request it did not expect.
type apiLog struct {
	mu    sync.Mutex
	errs  []string
	turns int
}

// fail records a request the fake did not expect.
func (l *apiLog) fail(format string, args ...any) {
	l.mu.Lock()
	l.errs = append(l.errs, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

// problems are the requests the fake did not expect, in order.
func (l *apiLog) problems() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errs...)
}

// turn counts one more model turn and returns its number, from 1.
func (l *apiLog) turn() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.turns++
	return l.turns
}

// answered is how many model turns the fake answered.
func (l *apiLog) answered() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.turns
}
