// Package llm is the one narrow call the escalation ladder makes to a
// language model, bring-your-own-key.
//
// A Client sends one prompt and returns the model's text with the tokens
// the provider says it used. Two wire adapters implement it, chosen by the
// base URL's host: the Anthropic Messages API for api.anthropic.com, and
// OpenAI-compatible chat completions for every other host (OpenRouter,
// Ollama, vLLM, Groq, Gemini's compatible endpoint, Moonshot and so on).
//
// Configuration is resolved flags, then environment, then defaults
// (Resolve). Nothing here runs until a step actually escalates: the API key
// is checked by NewClient, and a run at Level 0 never calls it. Only the
// Anthropic wire requires a key; an OpenAI-compatible host is sent no
// Authorization header when there is none (a local server). The key is
// sent only in the request's authentication header and is scrubbed from
// every error and every response text this package returns.
package llm
