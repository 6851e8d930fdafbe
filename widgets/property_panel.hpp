// PropertyPanel: the resource editor's form for the current selection (a QFormLayout), editing
// only through ScenarioDocument's undoable methods. Not here: selection (resource_canvas.hpp
// emits it) and validation rules (scenario_document.hpp owns them).
//
// Behaviour:
// - A text field applies on editingFinished (Enter or leaving it), a combo box on activation, a
//   check box when toggled. Nothing is pushed when the value did not change.
// - A rejected value (not a number, or refused by the document: a negative price, a name in use)
//   stays in the field as typed, is not applied, and the field's red error label says why, e.g.
//   "Price must be ≥ 0 $/GPU-hour (got -1)". The label clears once the field holds an accepted
//   value.
// - When the document changes through the panel, the form stays and its values are refreshed.
//   When it changes elsewhere (the canvas, undo, redo) the form is rebuilt from it, except
//   while a field holds text the user typed and has not applied, or shows an error: then only
//   the other fields are refreshed (the typed text stays). A change of pool figures alone
//   (count, price, spot, GPUs per node) refreshes the values of a form other than a zone's
//   instead of rebuilding it: nothing else in those forms depends on them.
// - Selection kinds: Scenario (name, description, default links and egress per relation),
//   Region (name, continent), Zone (name), Pool (zone, GPU type, count, $/GPU-hour, spot, GPUs
//   per node), Link (bandwidth, latency, egress $/GB for the pair; an imported SAILOR fit is kept
//   until bandwidth or latency is changed).
//
// Field keys (objectName of each editor; its error label is "<key>.error"):
//   scenario.name, scenario.description, default.<relation>.bandwidth|latency|egress
//   (relation: same_zone, same_region, same_continent, cross_continent), region.name,
//   region.continent, zone.name, pool.zone, pool.gpu_type, pool.count, pool.price, pool.spot,
//   pool.gpus_per_node, link.bandwidth, link.latency, link.egress.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <QString>
#include <QStringList>
#include <QWidget>

#include "scenario_document.hpp"

class QCheckBox;
class QFormLayout;
class QLabel;
class QScrollArea;

namespace sailor::studio {

class PropertyPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PropertyPanel(ScenarioDocument* document, QWidget* parent = nullptr);
  ~PropertyPanel() override;

  Selection selection() const { return selection_; }
  // Read-only: fields shown but disabled (plan inspection).
  void setReadOnly(bool read_only);

  // The editor of a field of the current form (QLineEdit, QComboBox, QCheckBox or
  // QPlainTextEdit), its error label, and the keys of the current form's fields.
  QWidget* field(const QString& key) const;
  QLabel* errorLabel(const QString& key) const;

  // The selected pool's preemption rate read from an availability trace (sailor::
  // preemptionsInTrace; the pool's "Rate from trace…" button asks for the file), its source
  // written beside it: one undo step. On error the rate field shows why and nothing changes.
  EditResult setPreemptionsFromTrace(const QString& path);

 public slots:
  // Shows the form for `selection` (None: the scenario's form).
  void setSelection(const sailor::studio::Selection& selection);

 signals:
  // A value the user typed was rejected (also shown inline).
  void editRejected(const QString& key, const QString& message);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  struct Field {
    Field(QString k, QWidget* e, QLabel* l, std::function<QString()> v,
          std::function<EditResult(const QString&)> a)
        : key(std::move(k)), editor(e), error_label(l), value(std::move(v)), apply(std::move(a)) {}
    QString key;
    QWidget* editor = nullptr;
    QLabel* error_label = nullptr;   // may be shared by the fields of one row
    QString error;                   // this field's current error, empty when none
    QString shown;                   // the text last put in the editor from the document
    std::function<QString()> value;  // the document's value as text
    std::function<EditResult(const QString&)> apply;  // parses and applies the user's text
    std::function<QString()> placeholder;             // line edits: shown when empty (optional)
  };

  void rebuild();
  void onDocumentChanged();
  bool selectionExists() const;
  void refreshValues(bool skip_busy);
  bool isBusy(const Field& field) const;  // edited by the user and not applied, or in error
  void updateTitle();
  void commitField(Field& field, const QString& text);
  void showFieldError(Field& field, const QString& message);
  Field* findField(const QString& key);
  const Field* findField(const QString& key) const;
  QString editorText(const Field& field) const;
  void setEditorText(Field& field, const QString& text);

  // Form builders.
  QWidget* addLineField(QFormLayout* form, const QString& label, const QString& key,
                        std::function<QString()> value,
                        std::function<EditResult(const QString&)> apply,
                        const QString& tooltip = QString());
  QLabel* addInfo(QFormLayout* form, const QString& label, const QString& text);
  // A check box field ("1" checked, "0" not) in a row of its own.
  QCheckBox* addCheckField(QFormLayout* form, const QString& row_label, const QString& text,
                           const QString& key, std::function<bool()> value,
                           std::function<EditResult(bool)> apply, const QString& tooltip);
  void buildPoolPricing(QFormLayout* form, int index);
  void buildScenario(QFormLayout* form);
  void buildRegion(QFormLayout* form);
  void buildZone(QFormLayout* form);
  void buildPool(QFormLayout* form);
  void buildPoolNetwork(QFormLayout* form, int index);
  void buildLink(QFormLayout* form);

  ScenarioDocument* doc_;
  Selection selection_{Selection::Scenario, -1, {}};
  bool read_only_ = false;
  bool rebuilding_ = false;
  bool committing_ = false;  // applying a field: the form stays, only values are refreshed
  QLabel* title_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  QWidget* form_widget_ = nullptr;
  std::vector<Field> fields_;
  std::shared_ptr<const Scenario> built_;  // the scenario the current form was built from
};

}  // namespace sailor::studio
