package console

import "github.com/patio-dev/patio/shared/patio"

// routes registers every page and form of the console. Pages are GET; every change is a POST of a
// form. Each route states what it requires; serve checks it before the handler runs.
func (c *Console) routes() {
	public := access{}
	page := access{signedIn: true}
	own := access{signedIn: true, anyTeam: true}
	may := func(p patio.Permission) access { return access{signedIn: true, perm: p} }

	c.handle("GET /{$}", public, func(rq *request) { c.redirect(rq, "/console/") })
	c.handle("GET /console", public, func(rq *request) { c.redirect(rq, "/console/") })
	c.handle("GET /console/static/{file}", public, c.static)

	// Session.
	c.handle("GET /console/login", public, c.loginPage)
	c.handle("POST /console/login", public, c.login)
	c.handle("POST /console/login/new-password", public, c.newPassword)
	c.handle("POST /console/logout", own, c.logout)
	c.handle("POST /console/language", public, c.switchLanguage)
	c.handle("POST /console/team", own, c.switchTeam)
	c.handle("GET /console/account/password", page, c.passwordPage)
	c.handle("POST /console/account/password", own, c.changePassword)

	c.handle("GET /console/{$}", page, c.overview)

	// Webhooks and deliveries.
	c.handle("GET /console/webhooks", page, c.webhookList)
	c.handle("GET /console/webhooks/new", may(patio.PermWebhooks), c.tokenPage(c.webhookNew))
	c.handle("POST /console/webhooks", may(patio.PermWebhooks), c.webhookCreate)
	c.handle("GET /console/webhooks/{id}", page, c.webhookShow)
	c.handle("POST /console/webhooks/{id}", may(patio.PermWebhooks), c.webhookSave)
	c.handle("POST /console/webhooks/{id}/enable", may(patio.PermWebhooks), c.webhookEnable)
	c.handle("POST /console/webhooks/{id}/disable", may(patio.PermWebhooks), c.confirmFirst(
		confirmation{key: "confirm.webhook.disable", name: c.webhookName, back: backToRecord("/console/webhooks/")}, c.webhookDisable))
	c.handle("POST /console/webhooks/{id}/delete", may(patio.PermDeleteWebhooks), c.confirmFirst(
		confirmation{key: "confirm.webhook.delete", name: c.webhookName, back: backToRecord("/console/webhooks/")}, c.webhookDelete))
	c.handle("POST /console/webhooks/{id}/rotate", may(patio.PermWebhooks), c.confirmFirst(
		confirmation{key: "confirm.webhook.rotate", name: c.webhookName, back: backToRecord("/console/webhooks/")}, c.webhookRotate))
	c.handle("POST /console/webhooks/{id}/test", may(patio.PermWebhooks), c.webhookTest)
	c.handle("GET /console/webhooks/{id}/deliveries", page, c.deliveryList)
	c.handle("POST /console/webhooks/{id}/replay", may(patio.PermWebhooks), c.replayBulk)
	c.handle("GET /console/deliveries", page, c.deliveryLog)
	c.handle("GET /console/deliveries/{id}", page, c.deliveryShow)
	c.handle("POST /console/deliveries/{id}/replay", may(patio.PermWebhooks), c.replayOne)

	// API keys.
	c.handle("GET /console/keys", may(patio.PermReadKeys), c.tokenPage(c.keyList))
	c.handle("POST /console/keys", may(patio.PermKeys), c.keyCreate)
	c.handle("POST /console/keys/{id}/revoke", may(patio.PermKeys), c.confirmFirst(
		confirmation{key: "confirm.key.revoke", name: c.keyName, back: backTo("/console/keys")}, c.keyRevoke))

	// Team.
	c.handle("GET /console/team", page, c.tokenPage(c.teamPage))
	c.handle("POST /console/team/members", may(patio.PermInvite), c.memberInvite)
	c.handle("POST /console/team/members/{user}/role", may(patio.PermMembers), c.memberRole)
	c.handle("POST /console/team/members/{user}/reinvite", may(patio.PermInvite), c.memberReinvite)
	memberRemoval := confirmation{key: "confirm.member.remove", name: c.memberName, back: backTo("/console/team")}
	c.handle("GET /console/team/members/{user}/remove", may(patio.PermMembers), c.confirmPage(memberRemoval))
	c.handle("POST /console/team/members/{user}/remove", may(patio.PermMembers), c.confirmFirst(memberRemoval, c.memberRemove))
	c.handle("POST /console/team/settings", may(patio.PermTeamSettings), c.teamSettings)

	// Stock.
	c.handle("GET /console/vehicles", page, c.vehicleList)
	c.handle("POST /console/vehicles/{id}/archive", may(patio.PermModules), c.confirmFirst(
		confirmation{key: "confirm.vehicle.archive", name: c.vehicleName, back: backToRecord("/console/vehicles/")},
		c.vehicleArchive()))
	c.handle("POST /console/vehicles/{id}/restore", may(patio.PermModules), c.vehicleRestore())
	c.handle("GET /console/vehicles/new", may(patio.PermModules), c.tokenPage(c.vehicleNew))
	c.handle("POST /console/vehicles", may(patio.PermModules), c.vehicleCreate)
	c.handle("GET /console/vehicles/{id}", page, c.vehicleShow)
	c.handle("POST /console/vehicles/{id}", may(patio.PermModules), c.vehicleSave)
	if c.d.Photos != nil {
		c.handle("POST /console/vehicles/{id}/photos", may(patio.PermModules), c.vehiclePhotoAdd)
		c.handle("POST /console/vehicles/{id}/photos/uploads", may(patio.PermModules), c.vehiclePhotoUploads)
		c.handle("POST /console/vehicles/{id}/photos/order", may(patio.PermModules), c.vehiclePhotoOrder)
		c.handle("GET /console/vehicles/{id}/photos/{photo}", may(patio.PermModules), c.vehiclePhotoUpload)
		c.handle("POST /console/vehicles/{id}/photos/{photo}/move", may(patio.PermModules), c.vehiclePhotoMove)
		c.handle("POST /console/vehicles/{id}/photos/{photo}/retry", may(patio.PermModules), c.vehiclePhotoRetry)
		c.handle("POST /console/vehicles/{id}/photos/{photo}/delete", may(patio.PermModules), c.confirmFirst(
			confirmation{key: "confirm.photo.remove", name: c.photoName, back: backToRecord("/console/vehicles/")},
			c.vehiclePhotoRemove))
	}

	// Clients.
	c.handle("GET /console/clients", page, c.clientList)
	c.handle("POST /console/clients/{id}/deactivate", may(patio.PermModules), c.confirmFirst(
		confirmation{key: "confirm.client.deactivate", name: c.clientName, back: backToRecord("/console/clients/")},
		c.clientDeactivate()))
	c.handle("POST /console/clients/{id}/restore", may(patio.PermModules), c.clientRestore())
	c.handle("GET /console/clients/new", may(patio.PermModules), c.tokenPage(c.clientNew))
	c.handle("POST /console/clients", may(patio.PermModules), c.clientCreate)
	c.handle("GET /console/clients/{id}", page, c.clientShow)
	c.handle("POST /console/clients/{id}", may(patio.PermModules), c.clientSave)

	// Pipeline.
	c.handle("GET /console/deals", page, c.dealBoard)
	c.handle("GET /console/deals/new", may(patio.PermModules), c.tokenPage(c.dealNew))
	c.handle("POST /console/deals", may(patio.PermModules), c.dealCreate)
	c.handle("GET /console/deals/{id}", page, c.dealShow)
	c.handle("POST /console/deals/{id}", may(patio.PermModules), c.dealSave)
	c.handle("POST /console/deals/{id}/phase", may(patio.PermModules), c.dealPhase)
	c.handle("POST /console/deals/{id}/win", may(patio.PermModules), c.dealWin)
	c.handle("POST /console/deals/{id}/lose", may(patio.PermModules), c.dealMove(patio.DealLost))
	c.handle("POST /console/deals/{id}/reopen", may(patio.PermModules), c.dealMove(patio.DealOpen))
	c.handle("POST /console/deals/{id}/archive", may(patio.PermModules), c.confirmFirst(
		confirmation{key: "confirm.deal.archive", name: c.dealName, back: backToRecord("/console/deals/")},
		c.dealArchive()))

	// Activities.
	c.handle("GET /console/activities", page, c.activityList)
	c.handle("GET /console/activities/new", may(patio.PermModules), c.tokenPage(c.activityNew))
	c.handle("POST /console/activities", may(patio.PermModules), c.activityCreate)
	c.handle("GET /console/activities/{id}", page, c.activityShow)
	c.handle("POST /console/activities/{id}", may(patio.PermModules), c.activitySave)
	c.handle("POST /console/activities/{id}/start", may(patio.PermModules), c.activityMove(patio.ActivityInProgress))
	c.handle("POST /console/activities/{id}/complete", may(patio.PermModules), c.activityMove(patio.ActivityCompleted))
	c.handle("POST /console/activities/{id}/cancel", may(patio.PermModules), c.confirmFirst(
		confirmation{key: "confirm.activity.cancel", name: c.activityName, back: backToRecord("/console/activities/")},
		c.activityMove(patio.ActivityCancelled)))
	c.handle("POST /console/activities/{id}/reopen", may(patio.PermModules), c.activityMove(patio.ActivityPending))

	// Financial records.
	c.handle("GET /console/financial", page, c.financialList)
	c.handle("GET /console/financial.csv", page, c.financialCSV)
	c.handle("GET /console/financial/summary", page, c.financialSummary)
	c.handle("GET /console/financial/new", may(patio.PermModules), c.tokenPage(c.financialNew))
	c.handle("POST /console/financial", may(patio.PermModules), c.financialCreate)
	c.handle("GET /console/financial/{id}", page, c.financialShow)
	c.handle("POST /console/financial/{id}", may(patio.PermModules), c.financialSave)
	c.handle("POST /console/financial/{id}/pay", may(patio.PermModules), c.financialPay)
	c.handle("POST /console/financial/{id}/cancel", may(patio.PermModules), c.confirmFirst(
		confirmation{key: "confirm.financial.cancel", name: c.financialName, back: backToRecord("/console/financial/")},
		c.financialMove(patio.FinancialCancelled)))
	c.handle("POST /console/financial/{id}/reopen", may(patio.PermModules), c.financialReopen)

	// Audit log.
	c.handle("GET /console/audit", page, c.auditPage)
}
