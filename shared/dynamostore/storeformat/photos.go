package storeformat

import "github.com/patio-dev/patio/shared/patio"

// PhotoRow is one photo as stored inside its vehicle's row (the row's photos attribute, a list in
// the vehicle's order): the photos are part of the vehicle, so reading a vehicle stays one read,
// and a change to them is a change of the vehicle in the table's stream. Names are short because
// a vehicle holds up to 30 and every copy of the row carries them.
type PhotoRow struct {
	ID     string  `dynamo:"id"`
	Status string  `dynamo:"st"`
	Width  *int    `dynamo:"w"`
	Height *int    `dynamo:"h"`
	Reason *string `dynamo:"r"`
	Code   *string `dynamo:"rc"` // a failed photo's patio.PhotoFailure
	Thumb  *string `dynamo:"u1"`
	Medium *string `dynamo:"u2"`
	Large  *string `dynamo:"u3"`
}

// toPhotoRows is the stored form of a vehicle's photos; nil for none (the attribute is left out).
func toPhotoRows(photos patio.PhotoList) []PhotoRow {
	if len(photos) == 0 {
		return nil
	}
	rows := make([]PhotoRow, len(photos))
	for i, p := range photos {
		rows[i] = PhotoRow{ID: p.ID, Status: p.Status, Width: p.Width, Height: p.Height, Reason: p.Reason}
		if p.ReasonCode != nil {
			rows[i].Code = new(string(*p.ReasonCode))
		}
		if p.URLs != nil {
			rows[i].Thumb, rows[i].Medium, rows[i].Large = &p.URLs.Thumb, &p.URLs.Medium, &p.URLs.Large
		}
	}
	return rows
}

// photosOf is a vehicle's photos from their stored form, numbered in their order; nil for none.
func photosOf(rows []PhotoRow) patio.PhotoList {
	if len(rows) == 0 {
		return nil
	}
	photos := make(patio.PhotoList, len(rows))
	for i, r := range rows {
		photos[i] = patio.Photo{ID: r.ID, Position: i + 1, Status: r.Status, Width: r.Width, Height: r.Height, Reason: r.Reason}
		if r.Code != nil {
			photos[i].ReasonCode = new(patio.PhotoFailure(*r.Code))
		}
		if r.Thumb != nil && r.Medium != nil && r.Large != nil {
			photos[i].URLs = &patio.PhotoURLs{Thumb: *r.Thumb, Medium: *r.Medium, Large: *r.Large}
		}
	}
	return photos
}
