(** * Sem: the meaning of peproof's statement language, stated once

    A statement's terms are SymPy expressions over real (and integer) variables.  Here every
    node the translator ([peproof/kernel/coq/translate.py]) accepts has ONE Coq function of
    type [option R] (arguments [option R]): [None] exactly where SymPy's value is undefined
    (zoo, nan) or not real, [Some v] with SymPy's value elsewhere.  The translator prints the
    tree of the original statement with these functions and adds no proposition of its own:
    the definedness of every operator is the [match] below, nowhere else.

    Relations ([oeq], [ole], [olt], [one]) are [False] when a side is undefined (the project's
    convention: a statement is proved only where its terms are defined, a counterexample is
    a point where they are).  Quantifiers, domains and hypotheses are printed as written.

    Conventions, each checked against SymPy by tests/test_coq_semantics.py:
    - [opow b e] (SymPy [Pow]): [b > 0]: [exp (e ln b)] ([rpow]); [b = 0]: [0] for [e > 0],
      [1] for [e = 0], undefined for [e < 0] (SymPy's [zoo]); [b < 0]: [powerRZ b e] for an
      integer [e], not real otherwise.  The printer's special forms ([opown] for a literal
      natural exponent, [opowZ] for an integer-polynomial exponent, [osqrt] for [1/2], [oexp]
      for base [E]) are proved equal to [opow] below ([opown_opow], [opowZ_opow], ...).
    - A relation of two integer terms is printed as the relation of [Z] ([oeqZ], [oleZ],
      [oltZ], [oneZ]), proved equivalent to the relation of their values ([oeqZ_oeq], ...).
    - At a positive integer literal [p]: [odivp a p] (division by [p]), [osqrtp p], [opowp p e]
      ([p ** e]) are total, each proved equal to the general operation ([odivp_odiv], ...).
    - [odiv a b] ([a * b**-1]): undefined for [b = 0].
    - [osqrt], [oln], [otan], [omod]: undefined outside [0 <= x], [0 < x], [cos x <> 0],
      [y <> 0].
    - [osum a b f] ([Sum(f, (i, a, b))]): defined when [a], [b] are integers with
      [b >= a - 1] and every term [a <= i <= b] is defined.  A reversed range ([b < a - 1]) is
      UNDEFINED: peproof/engines/wellformed.py makes [b >= a - 1] a side condition of every
      sum (arb refuses reversed ranges, and the engines' plain reading and SymPy's Karr
      convention differ only there), so the kernel and the engines mean the same thing.
*)

From Coq Require Import ZArith Reals Lia Lra.
From PEProof Require Import Defs.
Open Scope R_scope.

Definition oR := option R.

(** ** Leaves *)
Definition oZ (z : Z) : oR := Some (IZR z).  (* an integer variable or integer polynomial *)

(** ** Total operations *)
Definition oadd (a b : oR) : oR :=
  match a, b with Some x, Some y => Some (x + y) | _, _ => None end.
Definition osub (a b : oR) : oR :=
  match a, b with Some x, Some y => Some (x - y) | _, _ => None end.
Definition omul (a b : oR) : oR :=
  match a, b with Some x, Some y => Some (x * y) | _, _ => None end.
Definition oopp (a : oR) : oR := match a with Some x => Some (- x) | None => None end.
Definition olift (f : R -> R) (a : oR) : oR := match a with Some x => Some (f x) | None => None end.
Definition osin := olift sin.
Definition ocos := olift cos.
Definition oexp := olift exp.
Definition oatan := olift atan.
Definition oabs := olift Rabs.
Definition ofloor := olift (fun x => IZR (Int_part x)).
Definition oceil := olift (fun x => - IZR (Int_part (- x))).
Definition omax (a b : oR) : oR :=
  match a, b with Some x, Some y => Some (Rmax x y) | _, _ => None end.
Definition omin (a b : oR) : oR :=
  match a, b with Some x, Some y => Some (Rmin x y) | _, _ => None end.
Definition opown (a : oR) (n : nat) : oR := olift (fun x => x ^ n) a.

(** ** Partial operations *)
Definition odiv (a b : oR) : oR :=
  match a, b with
  | Some x, Some y => if Req_EM_T y 0 then None else Some (x / y)
  | _, _ => None
  end.
Definition osqrt (a : oR) : oR :=
  match a with Some x => if Rle_dec 0 x then Some (sqrt x) else None | None => None end.
Definition oln (a : oR) : oR :=
  match a with Some x => if Rlt_dec 0 x then Some (ln x) else None | None => None end.
Definition otan (a : oR) : oR :=
  match a with Some x => if Req_EM_T (cos x) 0 then None else Some (tan x) | None => None end.
Definition omod (a b : oR) : oR :=
  match a, b with
  | Some x, Some y => if Req_EM_T y 0 then None else Some (x - y * IZR (Int_part (x / y)))
  | _, _ => None
  end.

(** [is an integer] *)
Definition isZ (e : R) : bool := if Req_EM_T (IZR (Int_part e)) e then true else false.

Definition opow (a p : oR) : oR :=
  match a, p with
  | Some b, Some e =>
      if Rlt_dec 0 b then Some (rpow b e)
      else if Req_EM_T b 0 then
        (if Rlt_dec 0 e then Some 0 else if Req_EM_T e 0 then Some 1 else None)
      else if isZ e then Some (powerRZ b (Int_part e)) else None
  | _, _ => None
  end.

(** Operations at a positive integer literal [p] (the printer's special forms, total because
    [IZR (Zpos p)] is positive: [odivp_odiv], [osqrtp_osqrt], [opowp_opow] below). *)
Definition odivp (a : oR) (p : positive) : oR := olift (fun x => x / IZR (Zpos p)) a.
Definition osqrtp (p : positive) : oR := Some (sqrt (IZR (Zpos p))).
Definition opowp (p : positive) (e : oR) : oR := olift (fun x => rpow (IZR (Zpos p)) x) e.

(** An integer exponent given as an integer term. *)
Definition opowZ (a : oR) (z : Z) : oR :=
  match a with
  | Some b => if Req_EM_T b 0 then (if (z <? 0)%Z then None else Some (powerRZ b z))
              else Some (powerRZ b z)
  | None => None
  end.

(** ** Sums (integer limits; the range not reversed) *)
Fixpoint osum_n (a : Z) (n : nat) (f : Z -> oR) : oR :=
  match n with
  | O => Some 0
  | S m => oadd (osum_n a m f) (f (a + Z.of_nat m)%Z)
  end.

Definition osumZ (a b : Z) (f : Z -> oR) : oR :=
  if (a <=? b + 1)%Z then osum_n a (Z.to_nat (b + 1 - a)) f else None.

Definition osum (a b : oR) (f : Z -> oR) : oR :=
  match a, b with
  | Some x, Some y => if isZ x then if isZ y then osumZ (Int_part x) (Int_part y) f else None
                      else None
  | _, _ => None
  end.

(** ** Piecewise and its conditions (SymPy's [Piecewise], [And], [Or], [Not], [ITE])

    A condition denotes an [option bool]: [None] exactly where SymPy raises instead of
    deciding it (an order relation with an undefined or non-real side: "Invalid comparison").
    [And] is false as soon as one argument is false, even when another one raises (SymPy's
    [And._eval_subs]), [Or] dually; [Not] and [ITE] are strict.  [Piecewise((v1, c1), ...)]
    is the value of the first branch whose condition is true; a condition that raises before
    it, or no true condition, is undefined (SymPy: an exception, [nan]); the branches after
    the chosen one are never evaluated (SymPy stops at the first true condition).
    [Eq]/[Ne] with an undefined side are decided by SymPy ([Eq(zoo, 0)] is false): the printer
    prints them only between terms of total operations, where [oeqb] and SymPy agree. *)
Definition oB := option bool.
Definition oltb (a b : oR) : oB :=
  match a, b with Some x, Some y => Some (if Rlt_dec x y then true else false) | _, _ => None end.
Definition oleb (a b : oR) : oB :=
  match a, b with Some x, Some y => Some (if Rle_dec x y then true else false) | _, _ => None end.
Definition oeqb (a b : oR) : oB :=
  match a, b with Some x, Some y => Some (if Req_EM_T x y then true else false) | _, _ => None end.
Definition oneb (a b : oR) : oB :=
  match a, b with Some x, Some y => Some (if Req_EM_T x y then false else true) | _, _ => None end.
Definition onot (p : oB) : oB := match p with Some b => Some (negb b) | None => None end.
Definition oand (p q : oB) : oB :=
  match p, q with
  | Some false, _ => Some false
  | _, Some false => Some false
  | Some true, Some true => Some true
  | _, _ => None
  end.
Definition oor (p q : oB) : oB :=
  match p, q with
  | Some true, _ => Some true
  | _, Some true => Some true
  | Some false, Some false => Some false
  | _, _ => None
  end.
Definition oite (c p q : oB) : oB :=
  match c, p, q with
  | Some true, Some _, Some _ => p
  | Some false, Some _, Some _ => q
  | _, _, _ => None
  end.
Fixpoint opw (l : list (oB * oR)) : oR :=
  match l with
  | nil => None
  | cons (c, v) rest => match c with Some true => v | Some false => opw rest | None => None end
  end.

(** Conditions between integer terms (the printer's special form): the test of [Z]. *)
Definition oltbZ (a b : Z) : oB := Some (a <? b)%Z.
Definition olebZ (a b : Z) : oB := Some (a <=? b)%Z.
Definition oeqbZ (a b : Z) : oB := Some (a =? b)%Z.
Definition onebZ (a b : Z) : oB := Some (negb (a =? b))%Z.

(** [floor (a / p)] and [Mod(a, p)] of an integer term [a] at a positive integer literal [p]
    (the printer's special forms, [ofloorZ_ofloor], [omodZ_omod] below). *)
Definition ofloorZ (a : Z) (p : positive) : oR := oZ (a / Zpos p)%Z.
Definition omodZ (a : Z) (p : positive) : oR := oZ (a mod Zpos p)%Z.

(** ** Relations: false when a side is undefined *)
Definition oeq (a b : oR) : Prop := match a, b with Some x, Some y => x = y | _, _ => False end.
Definition one (a b : oR) : Prop := match a, b with Some x, Some y => x <> y | _, _ => False end.
Definition ole (a b : oR) : Prop := match a, b with Some x, Some y => x <= y | _, _ => False end.
Definition olt (a b : oR) : Prop := match a, b with Some x, Some y => x < y | _, _ => False end.

(** A relation between two integer terms (integer polynomials in integer variables), the
    printer's special form: the relation of [Z], which is the relation of their values
    ([oeqZ_oeq], ... below). *)
Definition oeqZ (a b : Z) : Prop := (a = b)%Z.
Definition oneZ (a b : Z) : Prop := (a <> b)%Z.
Definition oleZ (a b : Z) : Prop := (a <= b)%Z.
Definition oltZ (a b : Z) : Prop := (a < b)%Z.

(** ** The special forms are [opow] *)

Lemma Int_part_IZR : forall z, Int_part (IZR z) = z.
Proof.
  intro z; unfold Int_part.
  assert (H : up (IZR z) = (z + 1)%Z).
  { symmetry; apply tech_up; rewrite plus_IZR; simpl; lra. }
  rewrite H; lia.
Qed.

Lemma isZ_IZR : forall z, isZ (IZR z) = true.
Proof. intro z; unfold isZ; rewrite Int_part_IZR; destruct (Req_EM_T _ _); congruence. Qed.

Lemma rpow_IZR : forall b z, 0 < b -> rpow b (IZR z) = powerRZ b z.
Proof.
  intros b z Hb; unfold rpow; destruct z as [|p|p]; simpl.
  - unfold Rpower; rewrite Rmult_0_l; apply exp_0.
  - rewrite <- positive_nat_Z, <- INR_IZR_INZ; apply Rpower_pow; exact Hb.
  - rewrite <- (Ropp_involutive (IZR (Z.neg p))), <- opp_IZR; simpl Z.opp.
    rewrite Rpower_Ropp, <- positive_nat_Z, <- INR_IZR_INZ, Rpower_pow by exact Hb.
    reflexivity.
Qed.

Lemma opowZ_opow : forall a z, opowZ a z = opow a (oZ z).
Proof.
  intros [b|] z; [|reflexivity]; unfold opowZ, opow, oZ; rewrite isZ_IZR, Int_part_IZR.
  destruct (Rlt_dec 0 b) as [Hb|Hb].
  - rewrite rpow_IZR by exact Hb.
    destruct (Req_EM_T b 0); [lra|]; reflexivity.
  - destruct (Req_EM_T b 0) as [E|E]; [|reflexivity]; subst b.
    destruct (Z.ltb_spec z 0) as [Hz|Hz].
    + destruct (Rlt_dec 0 (IZR z)) as [H|H]; [apply lt_IZR in H; lia|].
      destruct (Req_EM_T (IZR z) 0) as [H'|H']; [apply eq_IZR in H'; lia|]; reflexivity.
    + destruct (Rlt_dec 0 (IZR z)) as [H|H].
      * destruct z as [|p|p]; [simpl in H; lra| |lia].
        simpl; rewrite pow_ne_zero; [reflexivity|lia].
      * assert (z = 0%Z) by (destruct (Z.eq_dec z 0); [assumption|];
                             exfalso; apply H, IZR_lt; lia).
        subst z; simpl; destruct (Req_EM_T 0 0); [reflexivity|congruence].
Qed.

Lemma opown_opow : forall a n, opown a n = opow a (oZ (Z.of_nat n)).
Proof.
  intros a n; rewrite <- opowZ_opow; destruct a as [b|]; [|reflexivity].
  unfold opowZ, opown, olift; rewrite <- pow_powerRZ.
  destruct (Z.ltb_spec (Z.of_nat n) 0); [lia|].
  destruct (Req_EM_T b 0); reflexivity.
Qed.

Lemma osqrt_opow : forall a, osqrt a = opow a (Some (1 / 2)).
Proof.
  intros [b|]; [|reflexivity]; unfold osqrt, opow.
  destruct (Rlt_dec 0 b) as [Hb|Hb].
  - destruct (Rle_dec 0 b); [|lra]. f_equal.
    unfold rpow; replace (1 / 2) with (/ 2) by lra; symmetry; apply Rpower_sqrt; exact Hb.
  - destruct (Req_EM_T b 0) as [E|E].
    + subst b; destruct (Rle_dec 0 0); [|lra]; destruct (Rlt_dec 0 (1 / 2)); [|lra].
      rewrite sqrt_0; reflexivity.
    + destruct (Rle_dec 0 b); [lra|].
      unfold isZ; destruct (Req_EM_T (IZR (Int_part (1 / 2))) (1 / 2)) as [H|H]; [|reflexivity].
      exfalso; assert (H0 : (0 < Int_part (1 / 2) < 1)%Z) by (split; apply lt_IZR; lra); lia.
Qed.

Lemma oeqZ_oeq : forall a b, oeqZ a b <-> oeq (oZ a) (oZ b).
Proof. intros a b; unfold oeqZ, oeq, oZ; split; [intros ->; reflexivity | apply eq_IZR]. Qed.

Lemma oneZ_one : forall a b, oneZ a b <-> one (oZ a) (oZ b).
Proof.
  intros a b; unfold oneZ, one, oZ; split; [apply IZR_neq | intros H E; apply H; subst; reflexivity].
Qed.

Lemma oleZ_ole : forall a b, oleZ a b <-> ole (oZ a) (oZ b).
Proof. intros a b; unfold oleZ, ole, oZ; split; [apply IZR_le | apply le_IZR]. Qed.

Lemma oltZ_olt : forall a b, oltZ a b <-> olt (oZ a) (oZ b).
Proof. intros a b; unfold oltZ, olt, oZ; split; [apply IZR_lt | apply lt_IZR]. Qed.

Lemma odivp_odiv : forall a p, odivp a p = odiv a (Some (IZR (Zpos p))).
Proof.
  intros [x|] p; [|reflexivity]; unfold odivp, odiv, olift.
  destruct (Req_EM_T (IZR (Zpos p)) 0) as [E|E]; [|reflexivity].
  apply eq_IZR in E; discriminate E.
Qed.

Lemma osqrtp_osqrt : forall p, osqrtp p = osqrt (Some (IZR (Zpos p))).
Proof.
  intro p; unfold osqrtp, osqrt; destruct (Rle_dec 0 (IZR (Zpos p))) as [_|H]; [reflexivity|].
  exfalso; apply H, IZR_le; lia.
Qed.

Lemma opowp_opow : forall p e, opowp p e = opow (Some (IZR (Zpos p))) e.
Proof.
  intros p [e|]; [|reflexivity]; unfold opowp, opow, olift.
  destruct (Rlt_dec 0 (IZR (Zpos p))) as [_|H]; [reflexivity|].
  exfalso; apply H, IZR_lt; lia.
Qed.

Lemma oexp_opow : forall a, oexp a = opow (Some (exp 1)) a.
Proof.
  intros [e|]; [|reflexivity]; unfold oexp, olift, opow.
  destruct (Rlt_dec 0 (exp 1)) as [H|H]; [|pose proof (exp_pos 1); lra].
  unfold rpow, Rpower; rewrite ln_exp, Rmult_1_r; reflexivity.
Qed.

Lemma oltbZ_oltb : forall a b, oltbZ a b = oltb (oZ a) (oZ b).
Proof.
  intros a b; unfold oltbZ, oltb, oZ; f_equal.
  destruct (Z.ltb_spec a b) as [Hz|Hz], (Rlt_dec (IZR a) (IZR b)) as [H|H]; try reflexivity.
  - exfalso; apply H, IZR_lt; assumption.
  - apply lt_IZR in H; lia.
Qed.

Lemma olebZ_oleb : forall a b, olebZ a b = oleb (oZ a) (oZ b).
Proof.
  intros a b; unfold olebZ, oleb, oZ; f_equal.
  destruct (Z.leb_spec a b) as [Hz|Hz], (Rle_dec (IZR a) (IZR b)) as [H|H]; try reflexivity.
  - exfalso; apply H, IZR_le; assumption.
  - apply le_IZR in H; lia.
Qed.

Lemma oeqbZ_oeqb : forall a b, oeqbZ a b = oeqb (oZ a) (oZ b).
Proof.
  intros a b; unfold oeqbZ, oeqb, oZ; f_equal.
  destruct (Z.eqb_spec a b) as [Hz|Hz], (Req_EM_T (IZR a) (IZR b)) as [H|H]; try reflexivity.
  - subst; exfalso; apply H; reflexivity.
  - apply eq_IZR in H; contradiction.
Qed.

Lemma onebZ_oneb : forall a b, onebZ a b = oneb (oZ a) (oZ b).
Proof.
  intros a b; unfold onebZ, oneb, oZ; pose proof (oeqbZ_oeqb a b) as E;
  unfold oeqbZ, oeqb, oZ in E; injection E as E; rewrite E.
  destruct (Req_EM_T (IZR a) (IZR b)); reflexivity.
Qed.

Lemma Int_part_div : forall a p, Int_part (IZR a / IZR (Zpos p)) = (a / Zpos p)%Z.
Proof.
  intros a p.
  assert (Hp : (0 < Zpos p)%Z) by lia.
  pose proof (Z.div_mod a (Zpos p) ltac:(lia)) as Ha.
  pose proof (Z.mod_pos_bound a (Zpos p) Hp) as Hr.
  assert (Hp' : 0 < IZR (Zpos p)) by (apply IZR_lt; lia).
  assert (Hx : IZR a / IZR (Zpos p) = IZR (a / Zpos p) + IZR (a mod Zpos p) / IZR (Zpos p)).
  { rewrite Ha at 1; rewrite plus_IZR, mult_IZR; field; lra. }
  assert (H0 : 0 <= IZR (a mod Zpos p) / IZR (Zpos p) < 1).
  { split.
    - apply Rmult_le_pos; [apply IZR_le; lia | left; apply Rinv_0_lt_compat; exact Hp'].
    - apply (Rmult_lt_reg_r (IZR (Zpos p))); [exact Hp'|].
      unfold Rdiv; rewrite Rmult_assoc, Rinv_l, Rmult_1_r, Rmult_1_l by lra.
      apply IZR_lt; lia. }
  unfold Int_part; rewrite Hx.
  assert (Hu : up (IZR (a / Zpos p) + IZR (a mod Zpos p) / IZR (Zpos p)) = (a / Zpos p + 1)%Z).
  { symmetry; apply tech_up; rewrite plus_IZR; lra. }
  rewrite Hu; lia.
Qed.

Lemma ofloorZ_ofloor : forall a p, ofloorZ a p = ofloor (odivp (oZ a) p).
Proof.
  intros a p; unfold ofloorZ, ofloor, odivp, olift, oZ; rewrite Int_part_div; reflexivity.
Qed.

Lemma omodZ_omod : forall a p, omodZ a p = omod (oZ a) (Some (IZR (Zpos p))).
Proof.
  intros a p; unfold omodZ, omod, oZ.
  destruct (Req_EM_T (IZR (Zpos p)) 0) as [E|E]; [apply eq_IZR in E; discriminate E|].
  rewrite Int_part_div; f_equal.
  pose proof (Z.div_mod a (Zpos p) ltac:(lia)) as Ha.
  assert (IZR a = IZR (Zpos p) * IZR (a / Zpos p) + IZR (a mod Zpos p))
    by (rewrite <- mult_IZR, <- plus_IZR; f_equal; exact Ha).
  lra.
Qed.

(** ** Reflection: the semantic goal into the real-number goal the scripts prove

    [pe_dec] case-splits every decision of the goal and of the hypotheses ([Req_EM_T],
    [Rlt_dec], [Rle_dec], [isZ], the integer tests), reducing the operations after each
    split: an undefined hypothesis is [False] (the branch is closed), an undefined conclusion
    is a branch that the context must refute ([pe_absurd]). *)

Lemma osumZ_some : forall a b f g, (a <= b + 1)%Z ->
  (forall i, (a <= i <= b)%Z -> f i = Some (g i)) -> osumZ a b f = Some (zsum a b g).
Proof.
  intros a b f g Hab H; unfold osumZ, zsum.
  destruct (Z.leb_spec a (b + 1)) as [_|]; [|lia].
  assert (Hn : forall n, (Z.of_nat n <= b + 1 - a)%Z -> osum_n a n f = Some (zsum_n a n g)).
  { induction n as [|n IH]; intro Hn; [reflexivity|].
    simpl; rewrite IH by lia; rewrite H by lia; reflexivity. }
  apply Hn; lia.
Qed.

Lemma osum_Z : forall a b f, osum (Some (IZR a)) (Some (IZR b)) f = osumZ a b f.
Proof. intros; unfold osum; rewrite !isZ_IZR, !Int_part_IZR; reflexivity. Qed.

Lemma osumZ_inv : forall a b f v, osumZ a b f = Some v ->
  (a <= b + 1)%Z /\ exists g, (forall i, (a <= i <= b)%Z -> f i = Some (g i)) /\ v = zsum a b g.
Proof.
  intros a b f v; unfold osumZ; destruct (Z.leb_spec a (b + 1)) as [Hab|]; [|discriminate].
  intro E; split; [exact Hab|].
  assert (Hn : forall n v, (Z.of_nat n <= b + 1 - a)%Z -> osum_n a n f = Some v ->
    exists g, (forall i, (a <= i < a + Z.of_nat n)%Z -> f i = Some (g i)) /\ v = zsum_n a n g).
  { induction n as [|n IH]; intros w Hn Ew.
    - exists (fun _ => 0); split; [intros; lia | simpl in Ew |- *; congruence].
    - simpl in Ew; destruct (osum_n a n f) as [s|] eqn:Es; [|discriminate].
      destruct (f (a + Z.of_nat n)%Z) as [t|] eqn:Et; [|discriminate].
      destruct (IH s) as [g [Hg Hs]]; [lia|reflexivity|].
      exists (fun i => if (i =? a + Z.of_nat n)%Z then t else g i); split.
      + intros i Hi; destruct (Z.eqb_spec i (a + Z.of_nat n)) as [->|Hne]; [exact Et|].
        apply Hg; lia.
      + simpl; injection Ew as <-; subst s; rewrite Z.eqb_refl; f_equal.
        apply zsum_n_ext; intros j Hj; destruct (Z.eqb_spec (a + Z.of_nat j) (a + Z.of_nat n));
          [lia|reflexivity]. }
  destruct (Hn (Z.to_nat (b + 1 - a)) v ltac:(lia) E) as [g [Hg ->]]; exists g; split.
  - intros i Hi; apply Hg; lia.
  - unfold zsum; destruct (Z.leb_spec a (b + 1)); [reflexivity|lia].
Qed.

Ltac pe_cbn :=
  unfold isZ, oeqZ, oneZ, oleZ, oltZ, ofloorZ, omodZ in *;
  cbn [oZ oadd osub omul oopp olift osin ocos oexp oatan oabs ofloor oceil omax omin opown
       odiv osqrt oln otan omod opow opowZ oeq one ole olt isZ odivp osqrtp opowp
       oltb oleb oeqb oneb onot oand oor oite opw oltbZ olebZ oeqbZ
       onebZ ofloorZ omodZ negb] in *.

(** The goal's operations evaluated, the goal only: a statement whose operations are all
    total reduces to a real-number proposition. *)
Ltac pe_cbn_goal :=
  unfold oeqZ, oneZ, oleZ, oltZ;
  cbn [oZ oadd osub omul oopp olift osin ocos oexp oatan oabs ofloor oceil omax omin opown
       odivp osqrtp opowp oeq one ole olt ofloorZ omodZ].

Lemma not_int : forall z p r : Z, (0 < r)%Z -> (p mod r <> 0)%Z -> IZR z * IZR r <> IZR p.
Proof.
  intros z p r Hr Hm E; rewrite <- mult_IZR in E; apply eq_IZR in E; subst p.
  rewrite Z_mod_mult in Hm; congruence.
Qed.

(** [IZR z = q] for a literal non-integer [q] is absurd. *)
Ltac pe_ni_close z q :=
  match goal with H : IZR z = q |- _ =>
    first [ lia | (let E := fresh in intro E; compute in E; discriminate)
          | rewrite H; field | rewrite H, opp_IZR; field ] end.

Ltac pe_not_int z q :=
  lazymatch q with
  | IZR ?p / IZR ?r => apply (not_int z p r); pe_ni_close z q
  | - (IZR ?p / IZR ?r) => apply (not_int z (- p) r); pe_ni_close z q
  end.

(** Is there a value [pe_absurd]'s rewrite step could evaluate ([sqrt 0], [sin PI], [cos (- x)],
    ...)?  Only then is the rewrite worth its cost (it walks every hypothesis for each of its
    fourteen lemmas); without one it is [lra] alone, tried just before. *)
Ltac pe_has_value :=
  match goal with
  | H : context [sqrt (IZR _)] |- _ => idtac | H : context [sqrt R0] |- _ => idtac
  | H : context [sqrt R1] |- _ => idtac
  | H : context [ln (IZR _)] |- _ => idtac | H : context [ln R1] |- _ => idtac
  | H : context [exp (IZR _)] |- _ => idtac | H : context [exp R0] |- _ => idtac
  | H : context [Rabs (IZR _)] |- _ => idtac | H : context [Rabs R0] |- _ => idtac
  | H : context [Int_part (IZR _)] |- _ => idtac
  | H : context [sin (- _)] |- _ => idtac | H : context [cos (- _)] |- _ => idtac
  | H : context [sin (IZR _)] |- _ => idtac | H : context [cos (IZR _)] |- _ => idtac
  | H : context [sin R0] |- _ => idtac | H : context [cos R0] |- _ => idtac
  | H : context [sin PI] |- _ => idtac | H : context [cos PI] |- _ => idtac
  | H : context [sin (PI / _)] |- _ => idtac | H : context [cos (PI / _)] |- _ => idtac
  end.

(** The integer step of [pe_absurd]'s [H : ~ P]: [lia] on [P] when [P] can be an integer fact
    ([IZR a <> IZR b] through [IZR_neq]); never on a relation of reals, which [lia] proves
    only from a contradiction among the integer hypotheses, tried before ([exfalso; lia]). *)
Ltac pe_neg_lia :=
  lazymatch goal with
  | |- IZR _ <> IZR _ => apply IZR_neq; lia
  | |- @eq R _ _ => fail | |- Rlt _ _ => fail | |- Rle _ _ => fail
  | |- Rgt _ _ => fail | |- Rge _ _ => fail | |- ~ (@eq R _ _) => fail
  | |- _ => lia
  end.

Ltac pe_absurd :=
  first [ contradiction | discriminate
        | solve [exfalso; lra] | solve [exfalso; lia]
        | match goal with H : ~ _ |- _ =>
            solve [exfalso; apply H; first [lra | assumption | pe_neg_lia]] end
        | match goal with H : ?x <> ?y, E : ?x = ?y |- _ => solve [exfalso; exact (H E)] end
        | match goal with H : rpow ?b ?e = 0 |- _ => exact (False_ind _ (rpow_neq_0 b e H)) end
        | match goal with H : exp ?x = 0 |- _ =>
            solve [exfalso; pose proof (exp_pos x); lra] end
        | match goal with H : ~ 0 < rpow ?b ?e |- _ => exact (False_ind _ (H (rpow_pos b e))) end
        | match goal with H : sqrt ?x = 0 |- _ =>
            solve [exfalso; pose proof (sqrt_lt_R0 x ltac:(lra)); lra] end
        | match goal with H : IZR ?z = ?q |- _ => solve [exfalso; pe_not_int z q] end
        | solve [exfalso; pe_has_value;
                 rewrite ?sqrt_0, ?sqrt_1, ?ln_1, ?exp_0, ?sin_0, ?cos_0, ?sin_PI, ?cos_PI,
                   ?sin_PI2, ?cos_PI2, ?cos_neg, ?sin_neg, ?Rabs_R0, ?Int_part_IZR in *;
                 first [ lra | match goal with H : ?a <> ?a |- _ => exact (H eq_refl) end ]]
        | match goal with H : PI = 0 |- _ => exact (False_ind _ (PI_neq0 H)) end
        (* a product that is zero: one factor is (a nonzero denominator [L * s], [155 * PI]) *)
        | match goal with H : ?a * ?b = 0 |- _ =>
            solve [exfalso; destruct (Rmult_integral a b H); clear H; pe_absurd] end ].

Ltac pe_dec :=
  pe_cbn; repeat (try solve [pe_absurd];
    match goal with
    | H : False |- _ => contradiction
    | |- context [Req_EM_T ?a ?b] => destruct (Req_EM_T a b)
    | |- context [Rlt_dec ?a ?b] => destruct (Rlt_dec a b)
    | |- context [Rle_dec ?a ?b] => destruct (Rle_dec a b)
    | |- context [(?a <? ?b)%Z] => destruct (Z.ltb_spec a b)
    | |- context [(?a <=? ?b)%Z] => destruct (Z.leb_spec a b)
    | |- context [(?a =? ?b)%Z] => destruct (Z.eqb_spec a b)
    | H : context [Req_EM_T ?a ?b] |- _ => destruct (Req_EM_T a b)
    | H : context [Rlt_dec ?a ?b] |- _ => destruct (Rlt_dec a b)
    | H : context [Rle_dec ?a ?b] |- _ => destruct (Rle_dec a b)
    | H : context [(?a <? ?b)%Z] |- _ => destruct (Z.ltb_spec a b)
    | H : context [(?a <=? ?b)%Z] |- _ => destruct (Z.leb_spec a b)
    | H : context [(?a =? ?b)%Z] |- _ => destruct (Z.eqb_spec a b)
    end; pe_cbn).
