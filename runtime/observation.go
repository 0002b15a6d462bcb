package runtime

import "github.com/reelier/reelier/runtime/jsondata"

// Observation is what a tool call returned.
type Observation struct {
	// Status is the HTTP status, or the tool's equivalent.
	Status int
	// Headers have lower-case names; repeated headers are joined with ", ".
	Headers map[string]string
	// Body is the response text.
	Body string

	parsed  bool
	json    any
	jsonErr error
}

// JSON returns the body parsed as JSON. The body is parsed at most once;
// every assert and bind of a step shares the result. An Observation is not
// safe for concurrent use.
func (o *Observation) JSON() (any, error) {
	if !o.parsed {
		o.json, o.jsonErr = jsondata.Parse(o.Body)
		o.parsed = true
	}
	return o.json, o.jsonErr
}
