package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/patio-dev/patio/shared/app/awsconfig"
	"github.com/patio-dev/patio/shared/cognito"
	"github.com/patio-dev/patio/shared/dynamostore/accountdb"
	"github.com/patio-dev/patio/shared/patio"
	"github.com/patio-dev/patio/shared/sesmail"
)

// members is the membership use cases, the console's own: inviting needs the user pool
// (COGNITO_USER_POOL_ID, COGNITO_CLIENT_ID) and the mail sender (ALERT_SENDER_EMAIL).
func (c *cli) members(ctx context.Context, inviting bool) (patio.Members, error) {
	m := patio.Members{Store: accountdb.NewMembers(c.store.DB()), Teams: accountdb.NewAccounts(c.store.DB()), Audit: c.store}
	if !inviting {
		return m, nil
	}
	if c.conf.UserPoolID == "" || c.conf.UserPoolClientID == "" || c.conf.AlertSender == "" {
		return m, errors.New("inviting needs COGNITO_USER_POOL_ID, COGNITO_CLIENT_ID and ALERT_SENDER_EMAIL (the stack's ConsoleUserPoolId and ConsoleUserPoolClientId outputs, and its AlertSenderEmail)")
	}
	cfg, err := awsconfig.Load(ctx)
	if err != nil {
		return m, err
	}
	m.Identity = cognito.New(cfg, c.conf.UserPoolID, c.conf.UserPoolClientID)
	m.Mail = sesmail.New(cfg, c.conf.AlertSender)
	return m, nil
}

func (c *cli) membersCmd() *cobra.Command {
	members := &cobra.Command{Use: "members", Short: "Invite people to a team's console, list and remove them"}
	members.AddCommand(c.memberInviteCmd(), c.memberListCmd(), c.memberRemoveCmd())
	return members
}

func (c *cli) memberInviteCmd() *cobra.Command {
	var team, email, role string
	invite := &cobra.Command{Use: "invite", Short: "Invite an email to a team's console with a role (the console's invitation; how a team gets its first owner)",
		Long: "Makes the email a member of the team with the role, creates their user with a temporary password unless\n" +
			"they have one, and emails them the invitation (from ALERT_SENDER_EMAIL), with the console's address\n" +
			"(CONSOLE_URL) when known. Inviting again someone already a member sends a new temporary password.",
		Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			r, err := patio.ParseRole(role)
			if err != nil {
				return err
			}
			ms, err := c.members(ctx, true)
			if err != nil {
				return err
			}
			m, err := ms.Invite(ctx, team, email, r, c.conf.ConsoleURL)
			if patio.IsKind(err, patio.KindConflict) {
				m, err = ms.Reinvite(ctx, team, email, c.conf.ConsoleURL)
			}
			if err != nil {
				return err
			}
			return c.print(m, func(w io.Writer) {
				fmt.Fprintf(w, "email\t%s\nrole\t%s\nstatus\t%s\n(the invitation went to %s)\n", m.Email, m.Role, m.Status, m.Email)
			})
		})}
	invite.Flags().StringVar(&team, "team", "", "team id (required)")
	invite.Flags().StringVar(&email, "email", "", "the person's email (required)")
	invite.Flags().StringVar(&role, "role", "", "owner, admin, member or viewer (required)")
	mustRequire(invite, "team", "email", "role")
	return invite
}

func (c *cli) memberListCmd() *cobra.Command {
	var team string
	list := &cobra.Command{Use: "list", Short: "List a team's members", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			if _, err := accountdb.NewAccounts(c.store.DB()).Team(ctx, team); err != nil {
				return err
			}
			ms, _ := c.members(ctx, false)
			all, err := ms.List(ctx, team)
			if err != nil {
				return err
			}
			if all == nil {
				all = []patio.Member{}
			}
			return c.print(map[string]any{"members": all}, func(w io.Writer) {
				if len(all) == 0 {
					fmt.Fprintln(w, "no members (members invite --team T --email E --role owner makes the first owner)")
					return
				}
				fmt.Fprintln(w, "EMAIL\tROLE\tSTATUS\tINVITED BY\tSINCE")
				for _, m := range all {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", m.Email, m.Role, m.Status, m.InvitedBy, m.CreatedAt)
				}
			})
		})}
	list.Flags().StringVar(&team, "team", "", "team id (required)")
	mustRequire(list, "team")
	return list
}

func (c *cli) memberRemoveCmd() *cobra.Command {
	var team, email string
	remove := &cobra.Command{Use: "remove", Short: "Remove a member from a team (a team keeps at least one owner)", Args: cobra.NoArgs,
		RunE: c.run(func(ctx context.Context) error {
			ms, _ := c.members(ctx, false)
			m, err := ms.Remove(ctx, team, email)
			if err != nil {
				return err
			}
			return c.print(m, func(w io.Writer) { fmt.Fprintf(w, "removed\t%s\nteam\t%s\n", m.Email, m.TeamID) })
		})}
	remove.Flags().StringVar(&team, "team", "", "team id (required)")
	remove.Flags().StringVar(&email, "email", "", "the member's email (required)")
	mustRequire(remove, "team", "email")
	return remove
}
