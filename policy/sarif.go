package policy

import (
	"encoding/json"
	"io"
)

// WriteSARIF writes the mistakes of policy files as a SARIF 2.1.0 log
// (one run, the tool "reelier policy", one rule: policy_error), for
// code-scanning upload like `reelier lint --format sarif`. Columns are
// Unicode code points.
func WriteSARIF(w io.Writer, version string, errs []*Error) error {
	type region struct {
		StartLine   int `json:"startLine,omitempty"`
		StartColumn int `json:"startColumn,omitempty"`
	}
	type artifact struct {
		URI string `json:"uri"`
	}
	type physical struct {
		ArtifactLocation artifact `json:"artifactLocation"`
		Region           *region  `json:"region,omitempty"`
	}
	type location struct {
		PhysicalLocation physical `json:"physicalLocation"`
	}
	type message struct {
		Text string `json:"text"`
	}
	type result struct {
		RuleID    string     `json:"ruleId"`
		Level     string     `json:"level"`
		Message   message    `json:"message"`
		Locations []location `json:"locations"`
	}
	type rule struct {
		ID               string  `json:"id"`
		ShortDescription message `json:"shortDescription"`
	}
	type driver struct {
		Name           string `json:"name"`
		Version        string `json:"version,omitempty"`
		InformationURI string `json:"informationUri"`
		Rules          []rule `json:"rules"`
	}
	type run struct {
		Tool struct {
			Driver driver `json:"driver"`
		} `json:"tool"`
		ColumnKind string   `json:"columnKind"`
		Results    []result `json:"results"`
	}
	type log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []run  `json:"runs"`
	}
	r := run{ColumnKind: "unicodeCodePoints", Results: []result{}}
	r.Tool.Driver = driver{Name: "reelier policy", Version: version, InformationURI: "https://github.com/reelier/reelier",
		Rules: []rule{{ID: "policy_error", ShortDescription: message{"A policy file that does not load: Reelier refuses to run under it."}}}}
	for _, e := range errs {
		loc := location{PhysicalLocation: physical{ArtifactLocation: artifact{URI: e.File}}}
		if e.Line > 0 {
			loc.PhysicalLocation.Region = &region{StartLine: e.Line, StartColumn: e.Col}
		}
		r.Results = append(r.Results, result{RuleID: "policy_error", Level: "error", Message: message{e.Msg}, Locations: []location{loc}})
	}
	b, err := json.MarshalIndent(log{
		Schema:  "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/main/sarif-2.1/schema/sarif-schema-2.1.0.json",
		Version: "2.1.0", Runs: []run{r}}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
