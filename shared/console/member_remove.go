package console

// memberRemove removes a member from the team; a team keeps at least one owner.
func (c *Console) memberRemove(rq *request) {
	m, ok := c.pathMember(rq)
	if !ok {
		return
	}
	if _, err := c.d.Members.Remove(rq.ctx(), rq.team.ID, m.Email); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, teamPath, "done.member.removed")
}
