package push

// Plan is what a push would do, worked out without any network call and
// without writing anything: the dry run.
type Plan struct {
	// Skill is the skill the plan is for.
	Skill string
	// UploadSkill is true when the skill file would be sent first, and
	// Why says why.
	UploadSkill bool
	Why         UploadReason
	// Records is the number of records in the history file; From and To
	// bracket the records that would be sent (indexes From to To-1).
	Records, From, To int
	// StateCorrupt is set when the state file is corrupt: a real push would
	// set it aside and start from the beginning, as this plan does.
	StateCorrupt error
}

// Count is the number of records the push would send.
func (p Plan) Count() int { return p.To - p.From }

// DryRun plans a push from the state file and the history file; it reads
// both, resolves no configuration, opens no connection and writes nothing,
// not even the lock file.
func DryRun(opts Options) (Plan, error) {
	p := Plan{Skill: opts.Skill}
	fsys := place{opts.Root}
	file, err := readState(fsys, opts.StatePath)
	if IsCorrupt(err) {
		p.StateCorrupt = err
	} else if err != nil {
		return p, err
	}
	st := file.peek(opts.Ledger)
	recs, err := readRecords(fsys, opts.RunsFile)
	if err != nil {
		return p, err
	}
	ss := st.skill(opts.Skill)
	p.Why, p.UploadSkill = uploadReason(ss, opts.SkillMd, opts.WithSkill)
	p.Records = len(recs)
	if !opts.All {
		p.From = ss.Pushed
	}
	p.To = max(p.From, len(recs))
	return p, nil
}
