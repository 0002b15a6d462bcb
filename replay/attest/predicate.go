// Package attest turns a run record into a receipt that proves itself: an
// in-toto Statement (SPEC.md §14, "The signed receipt") whose subject is the skill file that
// ran and whose predicate says what the replay checked, signed as a DSSE
// envelope inside a Sigstore bundle, and read back and verified offline.
//
// Signing uses a local key (Ed25519 or ECDSA P-256, PKCS #8 PEM, made by
// `reelier key init`); verification takes that key's public half, or, for
// a bundle a Sigstore certificate authority signed (keyless, as GitHub's
// artifact attestations are), the expected certificate identity and issuer
// and a trusted root file. Nothing here touches the network.
//
// The package pulls in sigstore-go and the protocol buffer runtime, so only
// the commands that sign or verify import it (see docs/architecture.md).
package attest

import (
	"github.com/reelier/reelier/replay/runlog"
)

// PredicateType is the URI of Reelier's receipt predicate (version 1).
const PredicateType = "https://reelier.dev/receipt/v1"

// PayloadType is the DSSE payload type of an in-toto Statement.
const PayloadType = "application/vnd.in-toto+json"

// Predicate is what a signed receipt says about one run. Its fields are
// the contract table of SPEC.md §14, "The signed receipt" (held to this struct by
// TestPredicateContract).
type Predicate struct {
	// Skill is the skill's frontmatter name.
	Skill string `json:"skill"`
	// Path is the skill file as the run named it (slash-separated); the
	// statement's subject names the same file.
	Path string `json:"path,omitempty"`
	// Verdict is the run's one word (passed, failed, unchecked,
	// interrupted, config).
	Verdict runlog.Verdict `json:"verdict"`
	// StartedAt and FinishedAt are the run's times (UTC, milliseconds).
	StartedAt  string `json:"startedAt"`
	FinishedAt string `json:"finishedAt"`
	// Steps are the run's steps in order.
	Steps []Step `json:"steps"`
	// Totals are the run's counts, as the run record has them.
	Totals runlog.Totals `json:"totals"`
	// Tools are the tool signatures the skill keeps (its reelier-tools
	// metadata): what the drift check compared the live servers with.
	Tools []Tool `json:"tools,omitempty"`
	// ToolDrift is the drift check's finding, when it found one.
	ToolDrift *runlog.ToolDrift `json:"toolDrift,omitempty"`
	// Servers are the MCP servers the run was pointed at.
	Servers []Server `json:"servers,omitempty"`
	// Provenance says where the run ran.
	Provenance *runlog.Provenance `json:"provenance,omitempty"`
	// OpenQuestions are the skill's unresolved open questions.
	OpenQuestions []runlog.OpenQuestion `json:"openQuestions,omitempty"`
	// Reelier is the version of reelier that ran and signed.
	Reelier string `json:"reelier"`
	// RecordSHA256 is the hex SHA-256 of the run record's line (as
	// appended to the history, newline included).
	RecordSHA256 string `json:"recordSha256"`
}

// Step is one step of the run as the receipt states it.
type Step struct {
	N       int            `json:"n"`
	Title   string         `json:"title"`
	Outcome runlog.Outcome `json:"outcome"`
	// Kind says why a failed step failed.
	Kind runlog.Kind `json:"kind,omitempty"`
	// Level is 0, or the escalation level that healed the step.
	Level int `json:"level"`
	// Tool is the tool the step called.
	Tool string `json:"tool,omitempty"`
	// ActionSHA256 is the hex SHA-256 of the filled call as recorded
	// (redacted): the tool's name, a newline, the arguments' JSON.
	ActionSHA256 string `json:"actionSha256,omitempty"`
	// Observation is the digest of what the tool returned.
	Observation *runlog.Digest `json:"observation,omitempty"`
	// Asserts are the step's asserts as the skill writes them: what a
	// passed step checked.
	Asserts []string `json:"asserts,omitempty"`
	// Binds are the step's binds as the skill writes them.
	Binds []string `json:"binds,omitempty"`
	// Skip says why a skipped step did not run.
	Skip string `json:"skip,omitempty"`
}

// Tool is one tool signature the skill keeps.
type Tool struct {
	Name string `json:"name"`
	// Input and Output are the short digests of the tool's input and
	// output schemas the signature keeps.
	Input  string `json:"input"`
	Output string `json:"output,omitempty"`
	// SHA256 is the hex SHA-256 of the whole signature line.
	SHA256 string `json:"sha256"`
}

// Server is one MCP server a run was pointed at.
type Server struct {
	// Name is the server's name in the skill, or its label.
	Name string `json:"name,omitempty"`
	// Kind is "command" (a local process) or "url" (a remote server).
	Kind string `json:"kind"`
	// Target is the command's program name (no arguments, no directory)
	// or the URL's host, redacted.
	Target string `json:"target"`
	// Mock is true when the server is `reelier mock` serving a recording.
	Mock bool `json:"mock,omitempty"`
}
