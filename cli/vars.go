package cli

import "github.com/reelier/reelier/replay/suite"

// The --var rules are replay/suite's, shared with reelier serve.
var (
	loadVars  = suite.LoadVars
	parseVars = suite.ParseVars
)

// registerSecretVars registers the --secret-var name=value flags of a
// command that has no template variables (reelier mcp).
func registerSecretVars(kvs []string) error {
	_, err := suite.SecretVars(kvs)
	return err
}
