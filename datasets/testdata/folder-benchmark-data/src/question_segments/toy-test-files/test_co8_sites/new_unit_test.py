def test_co8_sites(properties):
    import numpy as np
    expected = {"number_of_sites": ("int", 8), "reduced_formula": ("str", "Co")}
    errors = []
    for name, (fmt, want) in expected.items():
        if name not in properties:
            errors.append(f"{name} not found in input properties")
            continue
        got = properties[name]
        if fmt == "np.allclose":
            try:
                same = bool(np.allclose(got, want))
            except Exception:
                same = False
            if not same:
                errors.append(f"{name}: Expected value close to {want} but got {got}")
        elif not isinstance(got, eval(fmt)):
            errors.append(f"{name} is not of type {fmt}")
        elif got != want:
            errors.append(f"{name}: Expected {want} but got {got}")
    if errors:
        errors.append(len(errors))
        errors.append(len(expected))
        return errors
    return "ok"
