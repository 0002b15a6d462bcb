-- Signed receipts, verified on push (#30). signature is what the ledger
-- made of the record's bundle: 'verified' (a key or identity it trusts
-- signed this very record), 'untrusted' (signed, not by a signer it
-- trusts) or 'unsigned' (sent without a bundle); signer is who signed,
-- '' for an unsigned run. Additive only: every run stored before was
-- sent without a bundle and stays 'unsigned'.
ALTER TABLE runs ADD COLUMN signature TEXT NOT NULL DEFAULT 'unsigned';
ALTER TABLE runs ADD COLUMN signer TEXT NOT NULL DEFAULT '';
