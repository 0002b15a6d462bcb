package lsp

import (
	"testing"

	"github.com/reelier/reelier/lang/ast"
)

// TestMetadataDocs: hover explains every metadata key Reelier defines.
func TestMetadataDocs(t *testing.T) {
	for _, k := range ast.MetadataKeys {
		if metadataDocs[k] == "" {
			t.Errorf("no hover text for metadata key %s", k)
		}
	}
	if len(metadataDocs) != len(ast.MetadataKeys) {
		t.Errorf("%d hover texts for %d metadata keys", len(metadataDocs), len(ast.MetadataKeys))
	}
}
