package model

// Mean predicts the mean normalized throughput of the slot.
type Mean struct {
	framed
	SlotMean []float64 `json:"slot_mean"`
}

// NewMean returns the mean baseline.
func NewMean() *Mean { return &Mean{} }

// Name implements Model.
func (m *Mean) Name() string { return "mean" }

// Fit implements Model.
func (m *Mean) Fit(t *Train) error {
	m.f = t.Frame
	m.SlotMean = slotMeans(t.Obs, len(t.Slots))
	return nil
}

// Predict implements Model.
func (m *Mean) Predict(a, b, s int) float64 { return m.SlotMean[s] }
