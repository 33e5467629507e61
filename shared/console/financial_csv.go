package console

import (
	"bytes"
	"encoding/csv"

	"github.com/patio-dev/patio/shared/console/locale"
	"github.com/patio-dev/patio/shared/patio"
)

// financialCSV answers the filtered list, every page of it, as a CSV file that opens as columns
// in a spreadsheet set to the person's language: in Portuguese with ";" between fields, a decimal
// comma and a UTF-8 byte order mark; in English with "," and a decimal point.
func (c *Console) financialCSV(rq *request) {
	q := rq.filters()
	fq, err := financialQuery(q, q.Get("overdue") == "1")
	if err != nil {
		c.fail(rq, err)
		return
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if rq.p.Lang == locale.PtBR {
		buf.WriteString("\ufeff")
		w.Comma = ';'
	}
	// The header names the columns by their labels in the reader's language, as the page does.
	var header []string
	for _, name := range []string{"id", "type", "category", "description", "amount", "due_date", "status", "payment_method",
		"paid_at", "vehicle_id", "client_id", "deal_id", "notes", "created_at", "updated_at"} {
		header = append(header, rq.p.T("field."+name))
	}
	_ = w.Write(header)
	err = patio.EachFinancial(rq.ctx(), c.d.Financial, rq.team.ID, fq, func(page []patio.FinancialRecord) error {
		for _, f := range page {
			paid := ""
			if f.PaidAt != nil {
				paid = f.PaidAt.String()
			}
			if err := w.Write([]string{f.ID, f.Type, f.Category, f.Description, rq.p.Decimal(f.Amount), f.DueDate.String(),
				string(f.Status), ptrString(f.PaymentMethod), paid, ptrString(f.VehicleID), ptrString(f.ClientID), ptrString(f.DealID),
				ptrString(f.Notes), f.CreatedAt.String(), f.UpdatedAt.String()}); err != nil {
				return err
			}
		}
		return nil
	})
	w.Flush()
	if err == nil {
		err = w.Error()
	}
	if err != nil {
		c.fail(rq, err)
		return
	}
	h := rq.w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="financial-`+rq.now.In(rq.p.Loc).Format("2006-01-02")+`.csv"`)
	_, _ = rq.w.Write(buf.Bytes())
}
