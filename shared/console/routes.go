package console

import "github.com/patio-dev/patio/shared/patio"

// routes registers every page and form of the console. Pages are GET; every change is a POST of a
// form. Each route states what it requires; serve checks it before the handler runs.
func (c *Console) routes() {
	public := access{}
	page := access{signedIn: true}
	own := access{signedIn: true, anyTeam: true}
	may := func(p patio.Permission) access { return access{signedIn: true, perm: p} }

	c.handle("GET /{$}", public, func(rq *request) { c.redirect(rq, homePath) })
	c.handle("GET "+rootPath, public, func(rq *request) { c.redirect(rq, homePath) })
	c.handle("GET "+staticPath+"/{file}", public, c.static)

	// Session.
	c.handle("GET "+loginPath, public, c.loginPage)
	c.handle("POST "+loginPath, public, c.login)
	c.handle("POST "+loginPath+"/new-password", public, c.newPassword)
	c.handle("POST "+logoutPath, own, c.logout)
	c.handle("POST "+languagePath, public, c.switchLanguage)
	c.handle("POST "+teamPath, own, c.switchTeam)
	c.handle("GET "+passwordPath, page, c.passwordPage)
	c.handle("POST "+passwordPath, own, c.changePassword)

	c.handle("GET "+homePath+"{$}", page, c.overview)

	// Webhooks and deliveries.
	handleEarly(c, "GET "+webhooksPath, page, "webhooks", c.webhookRead, c.webhookList)
	c.handle("GET "+webhooksPath+"/new", may(patio.PermWebhooks), c.tokenPage(c.webhookNew))
	c.handle("POST "+webhooksPath, may(patio.PermWebhooks), c.webhookCreate)
	c.handle("GET "+webhooksPath+"/{id}", page, c.webhookShow)
	c.handle("POST "+webhooksPath+"/{id}", may(patio.PermWebhooks), c.webhookSave)
	c.handle("POST "+webhooksPath+"/{id}/enable", may(patio.PermWebhooks), c.webhookEnable)
	c.handle("POST "+webhooksPath+"/{id}/disable", may(patio.PermWebhooks), c.confirmFirst(
		confirmation{key: "confirm.webhook.disable", name: c.webhookName, back: backToRecord(webhooksPath + "/")}, c.webhookDisable))
	c.handle("POST "+webhooksPath+"/{id}/delete", may(patio.PermDeleteWebhooks), c.confirmFirst(
		confirmation{key: "confirm.webhook.delete", name: c.webhookName, back: backToRecord(webhooksPath + "/")}, c.webhookDelete))
	c.handle("POST "+webhooksPath+"/{id}/rotate", may(patio.PermWebhooks), c.confirmFirst(
		confirmation{key: "confirm.webhook.rotate", name: c.webhookName, back: backToRecord(webhooksPath + "/")}, c.webhookRotate))
	c.handle("POST "+webhooksPath+"/{id}/test", may(patio.PermWebhooks), c.webhookTest)
	c.handle("GET "+webhooksPath+"/{id}/deliveries", page, c.deliveryList)
	c.handle("POST "+webhooksPath+"/{id}/replay", may(patio.PermWebhooks), c.replayBulk)
	c.handle("GET "+deliveriesPath, page, c.deliveryLog)
	c.handle("GET "+deliveriesPath+"/{id}", page, c.deliveryShow)
	c.handle("POST "+deliveriesPath+"/{id}/replay", may(patio.PermWebhooks), c.replayOne)

	// API keys.
	c.handle("GET "+keysPath, may(patio.PermReadKeys), c.tokenPage(c.keyList))
	c.handle("POST "+keysPath, may(patio.PermKeys), c.keyCreate)
	c.handle("POST "+keysPath+"/{id}/revoke", may(patio.PermKeys), c.confirmFirst(
		confirmation{key: "confirm.key.revoke", name: c.keyName, back: backTo(keysPath)}, c.keyRevoke))

	// Team.
	c.handle("GET "+teamPath, page, c.tokenPage(c.teamPage))
	c.handle("POST "+teamPath+"/members", may(patio.PermInvite), c.memberInvite)
	c.handle("POST "+teamPath+"/members/{user}/role", may(patio.PermMembers), c.memberRole)
	c.handle("POST "+teamPath+"/members/{user}/reinvite", may(patio.PermInvite), c.memberReinvite)
	memberRemoval := confirmation{key: "confirm.member.remove", name: c.memberName, back: backTo(teamPath)}
	c.handle("GET "+teamPath+"/members/{user}/remove", may(patio.PermMembers), c.confirmPage(memberRemoval))
	c.handle("POST "+teamPath+"/members/{user}/remove", may(patio.PermMembers), c.confirmFirst(memberRemoval, c.memberRemove))
	c.handle("POST "+teamPath+"/settings", may(patio.PermTeamSettings), c.teamSettings)

	// Stock.
	c.handle("GET "+vehiclesPath, page, c.vehicleList)
	c.handle("POST "+vehiclesPath+"/{id}/archive", may(patio.PermModules), c.confirmFirst(
		confirmation{key: "confirm.vehicle.archive", name: c.vehicleName, back: backToRecord(vehiclesPath + "/")},
		c.vehicleArchive()))
	c.handle("POST "+vehiclesPath+"/{id}/restore", may(patio.PermModules), c.vehicleRestore())
	c.handle("GET "+vehiclesPath+"/new", may(patio.PermModules), c.tokenPage(c.vehicleNew))
	c.handle("POST "+vehiclesPath, may(patio.PermModules), c.vehicleCreate)
	c.handle("GET "+vehiclesPath+"/{id}", page, c.vehicleShow)
	c.handle("POST "+vehiclesPath+"/{id}", may(patio.PermModules), c.vehicleSave)
	if c.d.Photos != nil {
		c.handle("POST "+vehiclesPath+"/{id}/photos", may(patio.PermModules), c.vehiclePhotoAdd)
		c.handle("POST "+vehiclesPath+"/{id}/photos/uploads", may(patio.PermModules), c.vehiclePhotoUploads)
		c.handle("POST "+vehiclesPath+"/{id}/photos/order", may(patio.PermModules), c.vehiclePhotoOrder)
		c.handle("GET "+vehiclesPath+"/{id}/photos/{photo}", may(patio.PermModules), c.vehiclePhotoUpload)
		c.handle("POST "+vehiclesPath+"/{id}/photos/{photo}/move", may(patio.PermModules), c.vehiclePhotoMove)
		c.handle("POST "+vehiclesPath+"/{id}/photos/{photo}/retry", may(patio.PermModules), c.vehiclePhotoRetry)
		c.handle("POST "+vehiclesPath+"/{id}/photos/{photo}/delete", may(patio.PermModules), c.confirmFirst(
			confirmation{key: "confirm.photo.remove", name: c.photoName, back: backToRecord(vehiclesPath + "/")},
			c.vehiclePhotoRemove))
	}

	// Clients.
	c.handle("GET "+clientsPath, page, c.clientList)
	c.handle("POST "+clientsPath+"/{id}/deactivate", may(patio.PermModules), c.confirmFirst(
		confirmation{key: "confirm.client.deactivate", name: c.clientName, back: backToRecord(clientsPath + "/")},
		c.clientDeactivate()))
	c.handle("POST "+clientsPath+"/{id}/restore", may(patio.PermModules), c.clientRestore())
	c.handle("GET "+clientsPath+"/new", may(patio.PermModules), c.tokenPage(c.clientNew))
	c.handle("POST "+clientsPath, may(patio.PermModules), c.clientCreate)
	c.handle("GET "+clientsPath+"/{id}", page, c.clientShow)
	c.handle("POST "+clientsPath+"/{id}", may(patio.PermModules), c.clientSave)

	// Pipeline.
	c.handle("GET "+dealsPath, page, c.dealBoard)
	c.handle("GET "+dealsPath+"/new", may(patio.PermModules), c.tokenPage(c.dealNew))
	c.handle("POST "+dealsPath, may(patio.PermModules), c.dealCreate)
	c.handle("GET "+dealsPath+"/{id}", page, c.dealShow)
	c.handle("POST "+dealsPath+"/{id}", may(patio.PermModules), c.dealSave)
	c.handle("POST "+dealsPath+"/{id}/phase", may(patio.PermModules), c.dealPhase)
	c.handle("POST "+dealsPath+"/{id}/win", may(patio.PermModules), c.dealWin)
	c.handle("POST "+dealsPath+"/{id}/lose", may(patio.PermModules), c.dealMove(patio.DealLost))
	c.handle("POST "+dealsPath+"/{id}/reopen", may(patio.PermModules), c.dealMove(patio.DealOpen))
	c.handle("POST "+dealsPath+"/{id}/archive", may(patio.PermModules), c.confirmFirst(
		confirmation{key: "confirm.deal.archive", name: c.dealName, back: backToRecord(dealsPath + "/")},
		c.dealArchive()))

	// Activities.
	c.handle("GET "+activitiesPath, page, c.activityList)
	c.handle("GET "+activitiesPath+"/new", may(patio.PermModules), c.tokenPage(c.activityNew))
	c.handle("POST "+activitiesPath, may(patio.PermModules), c.activityCreate)
	c.handle("GET "+activitiesPath+"/{id}", page, c.activityShow)
	c.handle("POST "+activitiesPath+"/{id}", may(patio.PermModules), c.activitySave)
	c.handle("POST "+activitiesPath+"/{id}/start", may(patio.PermModules), c.activityMove(patio.ActivityInProgress))
	c.handle("POST "+activitiesPath+"/{id}/complete", may(patio.PermModules), c.activityMove(patio.ActivityCompleted))
	c.handle("POST "+activitiesPath+"/{id}/cancel", may(patio.PermModules), c.confirmFirst(
		confirmation{key: "confirm.activity.cancel", name: c.activityName, back: backToRecord(activitiesPath + "/")},
		c.activityMove(patio.ActivityCancelled)))
	c.handle("POST "+activitiesPath+"/{id}/reopen", may(patio.PermModules), c.activityMove(patio.ActivityPending))

	// Financial records.
	c.handle("GET "+financialPath, page, c.financialList)
	c.handle("GET "+financialPath+".csv", page, c.financialCSV)
	c.handle("GET "+financialPath+"/summary", page, c.financialSummary)
	c.handle("GET "+financialPath+"/new", may(patio.PermModules), c.tokenPage(c.financialNew))
	c.handle("POST "+financialPath, may(patio.PermModules), c.financialCreate)
	c.handle("GET "+financialPath+"/{id}", page, c.financialShow)
	c.handle("POST "+financialPath+"/{id}", may(patio.PermModules), c.financialSave)
	c.handle("POST "+financialPath+"/{id}/pay", may(patio.PermModules), c.financialPay)
	c.handle("POST "+financialPath+"/{id}/cancel", may(patio.PermModules), c.confirmFirst(
		confirmation{key: "confirm.financial.cancel", name: c.financialName, back: backToRecord(financialPath + "/")},
		c.financialMove(string(patio.FinancialCancelled))))
	c.handle("POST "+financialPath+"/{id}/reopen", may(patio.PermModules), c.financialReopen)

	// Audit log.
	c.handle("GET "+auditPath, page, c.auditPage)
}
