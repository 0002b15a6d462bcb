// Package jsregex compiles the regular expressions written in skills.
//
// Skills are authored for JavaScript RegExp semantics, so patterns are
// compiled with regexp2's ECMAScript mode (backtracking, lookaround and
// back-references as in JavaScript) and every match is bounded by a
// timeout, so a pathological pattern fails a step instead of hanging a run.
package jsregex

import (
	"fmt"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// MatchTimeout bounds a single match against an observation body.
const MatchTimeout = 2 * time.Second

var cache sync.Map // pattern string -> *regexp2.Regexp

// Compile compiles pattern with JavaScript semantics. Compiled patterns are
// cached, since the same skill is replayed many times.
func Compile(pattern string) (*regexp2.Regexp, error) {
	if re, ok := cache.Load(pattern); ok {
		return re.(*regexp2.Regexp), nil
	}
	re, err := compile(pattern)
	if err != nil {
		return nil, err
	}
	cache.Store(pattern, re)
	return re, nil
}

// CompileUncached compiles pattern like Compile without keeping it: for
// patterns tried once (the compiler checks candidate patterns against a
// recorded text), which would otherwise fill the cache.
func CompileUncached(pattern string) (*regexp2.Regexp, error) {
	if re, ok := cache.Load(pattern); ok {
		return re.(*regexp2.Regexp), nil
	}
	return compile(pattern)
}

func compile(pattern string) (re *regexp2.Regexp, err error) {
	defer func() {
		// regexp2 is a large parser; a panic on an odd pattern must become
		// an ordinary error, never a crash of the caller.
		if r := recover(); r != nil {
			re, err = nil, fmt.Errorf("unsupported pattern: %v", r)
		}
	}()
	re, err = regexp2.Compile(pattern, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = MatchTimeout
	return re, nil
}

// FirstGroup returns capture group 1 of the first match of re in s, and
// whether there was a match with a participating group 1.
func FirstGroup(re *regexp2.Regexp, s string) (string, bool, error) {
	m, err := re.FindStringMatch(s)
	if err != nil || m == nil {
		return "", false, err
	}
	groups := m.Groups()
	if len(groups) < 2 || len(groups[1].Captures) == 0 {
		return "", false, nil
	}
	return groups[1].String(), true, nil
}
