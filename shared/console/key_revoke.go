package console

// keyRevoke revokes a key of the team: the next API request with it is refused.
func (c *Console) keyRevoke(rq *request) {
	if _, err := c.d.Keys.Revoke(rq.ctx(), rq.team.ID, rq.r.PathValue("id")); err != nil {
		c.fail(rq, err)
		return
	}
	c.done(rq, keysPath, "done.key.revoked")
}
