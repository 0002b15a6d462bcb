-- Neovim as a real client of `reelier lsp` (run by .ci/nvim-lsp-test.sh).
--
-- Opens the broken skill given on the command line, attaches the server,
-- waits for its diagnostics, applies the quick fix for the misspelt key
-- (an incremental change), waits for the error to go, formats the buffer
-- and compares it with the expected canonical text. Every wait polls a
-- condition with vim.wait; nothing sleeps for a fixed time. Exits 0 when
-- every check passes, 1 otherwise.
--
-- Environment: REELIER (the binary), WANT (the expected formatted file).
-- Works with Neovim 0.7 (Debian bookworm) and later.

local function fail(msg)
  io.stderr:write("nvim-lsp-test: FAIL: " .. msg .. "\n")
  vim.cmd("cquit 1")
end

local function say(msg) io.stderr:write("nvim-lsp-test: " .. msg .. "\n") end

local ok, err = pcall(function()
  local buf = vim.api.nvim_get_current_buf()
  local config = {
    name = "reelier",
    cmd = { os.getenv("REELIER"), "lsp", "--stdio" },
    root_dir = vim.fn.getcwd(),
  }
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config, { bufnr = buf })
  else
    client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(buf, client_id)
  end
  if not client_id then fail("the server did not start") end

  local function errors()
    return vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR })
  end

  -- 1. The misspelt key is reported where it is, with its hint.
  if not vim.wait(20000, function() return #errors() > 0 end, 20) then
    fail("no diagnostics arrived")
  end
  local diags = errors()
  if #diags ~= 1 then fail("want 1 error, got " .. vim.inspect(diags)) end
  local d = diags[1]
  if d.lnum ~= 10 or d.col ~= 0 or not d.message:find("Unrecognized step field", 1, true) or not d.message:find('did you mean "assert"?', 1, true) then
    fail("unexpected diagnostic " .. vim.inspect(d))
  end
  say("diagnostic: " .. d.message:gsub("\n", " / "))

  -- 2. The quick fix renames the key; the change goes to the server
  -- incrementally and the error disappears once typing "pauses".
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(buf),
    range = { start = { line = 10, character = 3 }, ["end"] = { line = 10, character = 3 } },
    context = { diagnostics = {} },
  }
  local fixed = false
  for _, res in pairs(vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 10000) or {}) do
    for _, action in ipairs(res.result or {}) do
      if action.title == 'Change "asert" to "assert"' then
        vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
        fixed = true
      end
    end
  end
  if not fixed then fail("no quick fix for the misspelt key") end
  if not vim.wait(20000, function() return #errors() == 0 end, 20) then
    fail("the error was not cleared after the fix: " .. vim.inspect(errors()))
  end
  say("quick fix applied, diagnostics cleared")

  -- 3. Hover over {{first}} in step 2 (after an emoji on its header) says
  -- where it is bound.
  local line = vim.api.nvim_buf_get_lines(buf, 16, 17, false)[1]
  local col = line:find("{{first}}", 1, true)
  local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", {
    textDocument = vim.lsp.util.make_text_document_params(buf),
    position = { line = 16, character = col + 2 },
  }, 10000)
  local text = ""
  for _, res in pairs(hover or {}) do
    if res.result then text = res.result.contents.value end
  end
  if not text:find("bound by step 1", 1, true) then fail("hover: " .. vim.inspect(hover)) end
  say("hover: " .. text:gsub("\n.*", ""))

  -- 4. Formatting gives exactly `reelier fmt`'s canonical text.
  local edits
  for _, res in pairs(vim.lsp.buf_request_sync(buf, "textDocument/formatting", vim.lsp.util.make_formatting_params(), 10000) or {}) do
    edits = res.result
  end
  if not edits or #edits == 0 then fail("formatting returned no edits") end
  vim.lsp.util.apply_text_edits(edits, buf, "utf-16")
  local want = vim.fn.readfile(os.getenv("WANT"))
  local got = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if table.concat(got, "\n") ~= table.concat(want, "\n") then
    fail("formatted buffer differs:\n" .. table.concat(got, "\n"))
  end
  say("formatting applied (" .. #edits .. " edits); buffer is canonical")

  -- 5. Formatting the canonical buffer again changes nothing.
  for _, res in pairs(vim.lsp.buf_request_sync(buf, "textDocument/formatting", vim.lsp.util.make_formatting_params(), 10000) or {}) do
    if res.result and #res.result > 0 then fail("second formatting returned edits") end
  end
end)

if not ok then fail(tostring(err)) end
say("PASS")
vim.cmd("qall!")
