package lsp

import (
	"go.lsp.dev/protocol"
)

// semanticTokensOptions is the protocol's SemanticTokensOptions with the
// fields go.lsp.dev/protocol v0.12.0 leaves out of its struct (the legend
// and the full-document flag), without which no client asks for tokens.
type semanticTokensOptions struct {
	protocol.SemanticTokensOptions
	Legend protocol.SemanticTokensLegend `json:"legend"` // the token types and modifiers
	Full   bool                          `json:"full"`   // whole-document requests are answered
}

// initialize records the workspace folders and answers with the server's
// capabilities.
func (s *Server) initialize(p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	if s.initialized {
		return nil, errAlreadyInitialized
	}
	s.initialized = true
	for _, f := range p.WorkspaceFolders {
		s.ws.roots = append(s.ws.roots, fileName(protocol.DocumentURI(f.URI)))
	}
	switch { // older clients (Neovim 0.7) send only the deprecated root fields
	case len(s.ws.roots) > 0:
	case p.RootURI != "":
		s.ws.roots = []string{fileName(p.RootURI)}
	case p.RootPath != "":
		s.ws.roots = []string{p.RootPath}
	}
	var rename any = true
	if tc := p.Capabilities.TextDocument; tc != nil && tc.Rename != nil && tc.Rename.PrepareSupport {
		rename = &protocol.RenameOptions{PrepareProvider: true}
	}
	return &protocol.InitializeResult{
		ServerInfo: &protocol.ServerInfo{Name: "reelier", Version: s.opts.Version},
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true, Change: protocol.TextDocumentSyncKindIncremental, Save: &protocol.SaveOptions{},
			},
			CompletionProvider:         &protocol.CompletionOptions{TriggerCharacters: []string{"{", ":", "#", "-"}},
			HoverProvider:              true,
			DefinitionProvider:         true,
			ReferencesProvider:         true,
			RenameProvider:             rename,
			DocumentSymbolProvider:     true,
			CodeActionProvider:         &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, protocol.RefactorRewrite}},
			DocumentFormattingProvider: true,
			FoldingRangeProvider:       true,
			SemanticTokensProvider:     &semanticTokensOptions{Legend: Legend(), Full: true},
		},
	}, nil
}
